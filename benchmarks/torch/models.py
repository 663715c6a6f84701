# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The benchmark's models, built from code and configs (random weights, no
downloads), each with a batch, a loss, the blocks that per-block
checkpointing wraps and, for chains, an nn.Sequential form.

Vision models are used in their sequential form throughout (the same
modules and math as torchvision's; rotor's authors flattened them the same
way for checkpoint_sequential), so every method runs the same network.
"""

import os

import torch
from torch import nn

os.environ.setdefault("HF_HUB_OFFLINE", "1")


class Model:
    """model(batch) -> loss; blocks: modules per-block checkpointing wraps;
    sequential: the nn.Sequential that checkpoint_sequential cuts, or None."""

    def __init__(self, name, model, batch, loss, blocks, sequential=None, size=""):
        self.name, self.model, self.batch, self.loss = name, model, batch, loss
        self.blocks, self.sequential, self.size = blocks, sequential, size

    def to_channels_last(self):
        """An image model and its batch in channels-last memory format (the
        batch converted in place: the loss holds it); False for others."""
        if self.batch.dim() != 4:
            return False
        self.model.to(memory_format=torch.channels_last)
        self.batch.data = self.batch.data.contiguous(memory_format=torch.channels_last)
        self.size += ", channels-last"
        return True


def _classify(seq, images, classes):
    labels = torch.randint(0, classes, (images.shape[0],))
    return lambda f: nn.functional.cross_entropy(f(images), labels)


def resnet(quick, batch=None, side=None):
    import torchvision

    if quick:
        net, (b, sd) = torchvision.models.ResNet(
            torchvision.models.resnet.Bottleneck, [1, 1, 1, 1], num_classes=10), (2, 32)
    else:
        net, (b, sd) = torchvision.models.resnet101(), (4, 128)
    # Stem, one stage per bottleneck, head.
    seq = nn.Sequential(net.conv1, net.bn1, net.relu, net.maxpool,
                        *net.layer1, *net.layer2, *net.layer3, *net.layer4,
                        net.avgpool, nn.Flatten(1), net.fc)
    blocks = [*net.layer1, *net.layer2, *net.layer3, *net.layer4]
    batch, side = batch or b, side or sd
    x = torch.randn(batch, 3, side, side)
    return Model("resnet101", seq, x, _classify(seq, x, net.fc.out_features), blocks, seq,
                 f"batch {batch}, {side}x{side}")


class _DenseStage(nn.Module):
    """A dense layer as a chain stage: its input and its new features,
    concatenated (what the dense block's list of features holds)."""

    def __init__(self, layer):
        super().__init__()
        self.layer = layer

    def forward(self, x):
        return torch.cat([x, self.layer(x)], 1)


def densenet(quick, batch=None, side=None):
    import torchvision

    if quick:
        net, (b, sd) = torchvision.models.DenseNet(
            growth_rate=8, block_config=(2, 2), num_init_features=16, num_classes=10), (2, 32)
    else:
        net, (b, sd) = torchvision.models.densenet121(), (4, 128)
    stages = []
    for child in net.features.children():
        if isinstance(child, torchvision.models.densenet._DenseBlock):
            stages += [_DenseStage(layer) for layer in child.values()]
        else:
            stages.append(child)
    seq = nn.Sequential(*stages, nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(1),
                        net.classifier)
    blocks = [s for s in stages if isinstance(s, _DenseStage)]
    batch, side = batch or b, side or sd
    x = torch.randn(batch, 3, side, side)
    return Model("densenet121", seq, x, _classify(seq, x, net.classifier.out_features),
                 blocks, seq, f"batch {batch}, {side}x{side}")


def _lm(name, model, layers, vocab, batch, length):
    ids = torch.randint(0, vocab, (batch, length))
    # Without a loss_type, transformers' loss_function logs a warning that
    # torch.compile cannot trace: the step would be two graphs (the model,
    # then the loss), each planned alone.
    model.loss_type = "ForCausalLM"
    return Model(name, _LossOnly(model), ids, lambda f: f(ids), list(layers),
                 None, f"batch {batch}, {length} tokens, {len(layers)} layers")


class _LossOnly(nn.Module):
    """A language model's training step returns its loss alone.  Compiled
    whole, the model's graph would also return the logits: a forward output
    that holds batch x tokens x vocabulary floats (32 MiB for the benchmark's
    GPT-2 and Llama) and gets a tangent of its own, zeros that AOTAutograd
    materializes for the backward."""

    def __init__(self, lm):
        super().__init__()
        self.lm = lm

    def forward(self, ids):
        # No key-value cache: a recomputed layer would append to it again.
        return self.lm(input_ids=ids, labels=ids, use_cache=False).loss


def gpt2(quick, batch=None, side=None):
    from transformers import GPT2Config, GPT2LMHeadModel

    dims = (2, 32, 2, 256, 2, 32) if quick else (6, 256, 4, 8192, 4, 256)
    layers, width, heads, vocab, b, length = dims
    batch, length = batch or b, side or length
    # No dropout: every method must give the eager step's gradients.
    cfg = GPT2Config(n_layer=layers, n_embd=width, n_head=heads, vocab_size=vocab,
                     n_positions=length, resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0,
                     bos_token_id=0, eos_token_id=0, attn_implementation="eager")
    model = GPT2LMHeadModel(cfg)
    return _lm("gpt2", model, model.transformer.h, vocab, batch, length)


def llama(quick, batch=None, side=None):
    from transformers import LlamaConfig, LlamaForCausalLM

    dims = (2, 32, 2, 256, 2, 32) if quick else (6, 256, 4, 8192, 4, 256)
    layers, width, heads, vocab, b, length = dims
    batch, length = batch or b, side or length
    cfg = LlamaConfig(num_hidden_layers=layers, hidden_size=width, num_attention_heads=heads,
                      num_key_value_heads=heads // 2, intermediate_size=width * 8 // 3,
                      vocab_size=vocab, max_position_embeddings=length,
                      attn_implementation="eager")
    model = LlamaForCausalLM(cfg)
    return _lm("llama", model, model.model.layers, vocab, batch, length)


class _ViTStem(nn.Module):
    def __init__(self, vit):
        super().__init__()
        self.patch_embed, self.vit = vit.patch_embed, [vit]  # vit not a submodule
        # What the forward uses is registered here, so that it is the
        # model's: trained, counted, converted with it (its own parameters:
        # the class token and the position embedding).
        self.norm_pre = vit.norm_pre
        self.embeddings = nn.ParameterList(vit.parameters(recurse=False))

    def forward(self, x):
        vit = self.vit[0]
        return vit.norm_pre(vit.patch_drop(vit._pos_embed(self.patch_embed(x))))


class _ViTHead(nn.Module):
    def __init__(self, vit):
        super().__init__()
        self.norm, self.vit = vit.norm, [vit]
        self.fc_norm, self.head = vit.fc_norm, vit.head   # forward_head's
        self.attn_pool = vit.attn_pool

    def forward(self, x):
        return self.vit[0].forward_head(self.norm(x))


def vit(quick, batch=None, side=None):
    from timm.models.vision_transformer import VisionTransformer

    if quick:
        net, (b, sd) = VisionTransformer(img_size=side or 32, patch_size=8, embed_dim=32,
                                         depth=2, num_heads=2, num_classes=10), (2, 32)
    else:
        net, (b, sd) = VisionTransformer(img_size=side or 128, patch_size=16, embed_dim=384,
                                               depth=8, num_heads=6, num_classes=1000), (8, 128)
    # Stem (patches, position embedding), the blocks, head: the chain that
    # timm's own forward runs.
    seq = nn.Sequential(_ViTStem(net), *net.blocks, _ViTHead(net))
    batch, side = batch or b, side or sd
    x = torch.randn(batch, 3, side, side)
    return Model("vit", seq, x, _classify(seq, x, net.num_classes), list(net.blocks), seq,
                 f"batch {batch}, {side}x{side}, {len(net.blocks)} blocks")


MODELS = {"resnet101": resnet, "densenet121": densenet, "gpt2": gpt2, "llama": llama,
          "vit": vit}
