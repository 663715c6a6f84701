# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Loading a model and tracing its joint forward+backward graph.

The model is wrapped with its loss (`LossWrapper`) so that the traced
function returns one scalar; AOTAutograd's export
(`torch._functorch.aot_autograd.aot_export_module(..., trace_joint=True)`)
traces forward and backward into one functional FX graph of ATen ops (the
*joint graph*) with a signature naming what every placeholder and output
is.  `trace_joint` then puts that graph into the form the rest of the
importer reads:

  placeholders  parameters, then buffers, then the inputs (the Primals),
                then tangents_1: d(loss)/d(loss), a 0-d tensor (1.0)
  output        [loss, grad of every primal (None where there is none)]

Buffer updates (batch norm's running statistics) are outputs of the export
and are dropped here: they are not part of the step's results.
"""

import importlib
import importlib.util
import os
import sys
from dataclasses import dataclass, field
from typing import List, Optional

import torch
import torch.nn as nn
import torch.nn.functional as F

from .scatter_sums import fold_select_backward_sums


class ImportError_(Exception):
    """A user-facing error of the importer (bad model name, ...)."""


# --------------------------------------------------------------------------
# Models
# --------------------------------------------------------------------------
# hf:<family>: a transformers model built from its Config with random
# weights (nothing is downloaded), at a small size that --config overrides.
# kind 'causal': next-token prediction; 'masked': an encoder predicting its
# own tokens; 'seq2seq': T5, the decoder reading the tokens shifted right.
# Dropout on attention probabilities is off (inside scaled_dot_product_
# attention PyTorch's reference of `check` cannot draw the step's masks);
# dropout elsewhere keeps the family's default (T5 has one rate for both).
_SMALL = dict(vocab_size=512)
HF_FAMILIES = {
    "gpt2": ("GPT2Config", "GPT2LMHeadModel", "causal",
             dict(_SMALL, n_layer=2, n_embd=128, n_head=4, attn_pdrop=0.0)),
    "llama": ("LlamaConfig", "LlamaForCausalLM", "causal",
              dict(_SMALL, num_hidden_layers=2, hidden_size=128, intermediate_size=256,
                   num_attention_heads=4, num_key_value_heads=2)),
    "mistral": ("MistralConfig", "MistralForCausalLM", "causal",
                dict(_SMALL, num_hidden_layers=2, hidden_size=128, intermediate_size=256,
                     num_attention_heads=4, num_key_value_heads=2, sliding_window=None)),
    "qwen2": ("Qwen2Config", "Qwen2ForCausalLM", "causal",
              dict(_SMALL, num_hidden_layers=2, hidden_size=128, intermediate_size=256,
                   num_attention_heads=4, num_key_value_heads=2)),
    "bert": ("BertConfig", "BertForMaskedLM", "masked",
             dict(_SMALL, num_hidden_layers=2, hidden_size=128, intermediate_size=256,
                  num_attention_heads=4, attention_probs_dropout_prob=0.0)),
    "t5": ("T5Config", "T5ForConditionalGeneration", "seq2seq",
           dict(_SMALL, num_layers=2, num_decoder_layers=2, d_model=128, d_ff=256,
                num_heads=4, d_kv=32, dropout_rate=0.0)),
}


def parse_config(text):
    """key=value,... -> {key: int, float, bool, None or str}."""
    out = {}
    if not text:
        return out
    for item in text.split(","):
        if "=" not in item or not item.split("=", 1)[0].strip():
            raise ImportError_("--config: expected key=value[,key=value...], got '%s'" % item)
        k, v = (x.strip() for x in item.split("=", 1))
        low = v.lower()
        if low in ("true", "false"):
            out[k] = low == "true"
        elif low == "none":
            out[k] = None
        else:
            for conv in (int, float):
                try:
                    out[k] = conv(v)
                    break
                except ValueError:
                    continue
            else:
                out[k] = v
    return out


def model_kind(spec):
    """'hf', 'timm' or 'torch' (torchvision or file.py:Class)."""
    head = spec.split(":", 1)[0]
    return head if head in ("hf", "timm") and ":" in spec else "torch"


def default_input_shape(spec):
    """A language model's input is a sequence of token ids: [seq]."""
    return [64] if model_kind(spec) == "hf" else [3, 224, 224]


def _hf_model(family, config, input_shape):
    if family not in HF_FAMILIES:
        raise ImportError_("unknown transformers family '%s' (hf:%s)"
                           % (family, "|hf:".join(sorted(HF_FAMILIES))))
    if input_shape is not None and len(input_shape) != 1:
        raise ImportError_("hf:%s: --input-shape is the sequence length (one number), got %s"
                           % (family, ",".join(map(str, input_shape))))
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    import transformers
    transformers.logging.set_verbosity_error()  # token ids outside a small vocabulary, ...
    cfg_name, model_name, kind, small = HF_FAMILIES[family]
    kwargs = dict(small)
    seq = (input_shape or [64])[0]
    pos = {"gpt2": "n_positions", "t5": None}.get(family, "max_position_embeddings")
    if pos:
        kwargs[pos] = max(seq, 2)
    kwargs.update(config)
    cfg_cls = getattr(transformers, cfg_name)
    known = set(cfg_cls().to_dict())
    bad = [k for k in config if k not in known]
    if bad:
        raise ImportError_("hf:%s: %s has no field %s" % (family, cfg_name, ", ".join(bad)))
    cfg = cfg_cls(**kwargs)
    cfg.use_cache = False
    cfg._attn_implementation = "sdpa"
    model = getattr(transformers, model_name)(cfg)
    model.remat_tokens = (kind, cfg.vocab_size)
    return model


def _timm_model(name, num_classes, input_shape, config):
    """timm.create_model(name, pretrained=False, **config): random weights;
    config overrides the architecture's arguments (depth=2, ...)."""
    import timm
    if name not in timm.list_models():
        raise ImportError_("unknown timm model '%s' (timm.list_models() lists them)" % name)
    kwargs = dict(config)
    kwargs["pretrained"] = False
    if num_classes is not None:
        kwargs["num_classes"] = num_classes
    if input_shape is not None and len(input_shape) == 3 and \
            any(name.startswith(p) for p in ("vit_", "deit_", "swin")):
        kwargs["img_size"] = tuple(input_shape[1:])
    return timm.create_model(name, **kwargs)


def load_model(spec: str, num_classes: Optional[int] = None,
               input_shape: Optional[List[int]] = None, config=None) -> nn.Module:
    """MODEL: a torchvision model name (resnet18, vgg19, ...),
    path/to/file.py:Class (a class constructed without arguments),
    hf:<family> (a transformers model from its Config, `config` overriding
    fields) or timm:<name> (`config`: timm.create_model's arguments).  torchvision models built for one resolution
    (vit_*: image_size, maxvit_*: input_size) are built for input_shape's
    (C, H, W)."""
    kind = model_kind(spec)
    if config and kind == "torch":
        raise ImportError_("--config applies to hf:<family> and timm:<name> models only")
    if kind == "hf":
        return _hf_model(spec.split(":", 1)[1], config or {}, input_shape)
    if kind == "timm":
        try:
            return _timm_model(spec.split(":", 1)[1], num_classes, input_shape, config or {})
        except TypeError as e:  # an argument the architecture does not take
            raise ImportError_("%s: %s" % (spec, e))
    if ":" in spec and spec.split(":", 1)[0].endswith(".py"):
        path, cls = spec.rsplit(":", 1)
        if not os.path.exists(path):
            raise ImportError_("no such file: %s" % path)
        name = "remat_user_model_%d" % abs(hash(os.path.abspath(path)))
        mod_spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(mod_spec)
        sys.modules[name] = module
        mod_spec.loader.exec_module(module)
        if not hasattr(module, cls):
            raise ImportError_("%s has no class %s" % (path, cls))
        return getattr(module, cls)()
    import torchvision
    models = torchvision.models
    if not hasattr(models, spec) or spec.startswith("_"):
        raise ImportError_("unknown model '%s' (a torchvision model name, "
                           "path/to/file.py:Class, hf:<family> or timm:<name>)" % spec)
    kwargs = {}
    if num_classes is not None:
        kwargs["num_classes"] = num_classes
    if spec == "inception_v3":
        kwargs.update(aux_logits=False, init_weights=False)
    if spec.startswith("googlenet"):
        kwargs.update(aux_logits=False, init_weights=False)
    if input_shape is not None and len(input_shape) == 3:
        if spec.startswith("vit_") and input_shape[1] == input_shape[2]:
            kwargs["image_size"] = input_shape[1]
        if spec.startswith("maxvit_"):
            kwargs["input_size"] = tuple(input_shape[1:])
    return getattr(models, spec)(**kwargs)


def declared_inputs(model, batch):
    """The inputs `model.remat_example_inputs(batch)` declares (a tensor or
    a tuple of them: what forward reads, in order), else None."""
    declare = getattr(model, "remat_example_inputs", None)
    if not callable(declare):
        return None
    xs = declare(batch)
    xs = list(xs) if isinstance(xs, (tuple, list)) else [xs]
    if not xs or not all(isinstance(x, torch.Tensor) for x in xs):
        raise ImportError_("%s.remat_example_inputs(batch) must return a tensor or a tuple "
                           "of tensors" % type(model).__name__)
    return xs


def input_names(n_inputs, with_target):
    """x (one input) or x0, x1, ... (several), then target."""
    names = ["x"] if n_inputs == 1 else ["x%d" % i for i in range(n_inputs)]
    return names + (["target"] if with_target else [])


def token_model(model):
    """(kind, vocabulary size) of a language model (input: token ids), else
    None.  kind: 'causal', 'masked', 'seq2seq' (transformers' models) or
    'ids' (a model of the user's that returns logits: --vocab, or a class
    attribute remat_tokens = ("ids", N))."""
    return getattr(model, "remat_tokens", None)


class LossWrapper(nn.Module):
    """model + loss: forward(x[, target]) returns the scalar loss.
    loss 'sum': the sum of the model's outputs; 'xent': cross-entropy
    (mean over the batch) against integer class labels.  A language model
    (token_model) reads token ids x; its 'xent' is the next-token
    cross-entropy (T5: its decoder reads x shifted right and predicts x;
    BERT: each position predicts its own token), with no extra input."""

    def __init__(self, model: nn.Module, loss: str, n_inputs: int = 1):
        super().__init__()
        self.model = model
        self.loss = loss
        self.tokens = token_model(model)
        self.n_inputs = n_inputs   # what the model's forward reads
        self.tupled = False     # (loss,): what aot_export_module traces

    def forward(self, *args):
        xs, rest = args[:self.n_inputs], args[self.n_inputs:]
        loss = self._loss(xs, rest[0] if rest else None)
        return (loss,) if self.tupled else loss

    def _loss(self, xs, target):
        if self.tokens is not None:
            return self._lm(xs[0])
        out = self.model(*xs)
        if isinstance(out, (tuple, list)):
            out = out[0]
        if hasattr(out, "logits"):  # torchvision named tuples
            out = out.logits
        if self.loss == "xent":
            return F.cross_entropy(out, target)
        return out.sum()

    def _lm(self, x):
        kind, vocab = self.tokens
        if kind == "ids":       # a model of the user's: model(ids) -> logits
            logits = self.model(x)
            if isinstance(logits, (tuple, list)):
                logits = logits[0]
            logits = getattr(logits, "logits", logits)
            kind = "causal"
        elif kind == "seq2seq":
            start = torch.zeros_like(x[:, :1])
            dec = torch.cat([start, x[:, :-1]], dim=1)
            logits = self.model(input_ids=x, decoder_input_ids=dec).logits
        else:
            logits = self.model(input_ids=x).logits
        if self.loss != "xent":
            return logits.sum()
        if kind == "causal":
            logits, want = logits[:, :-1], x[:, 1:]
        else:
            want = x
        return F.cross_entropy(logits.reshape(-1, vocab), want.reshape(-1))


# --------------------------------------------------------------------------
# Tracing
# --------------------------------------------------------------------------
@dataclass
class Primal:
    """One placeholder primals_i of the joint graph."""
    node: object            # the fx placeholder
    kind: str               # 'param', 'buffer' or 'input'
    name: str               # parameter path ('layer1.0.conv1.weight'), 'x', 't'
    shape: List[int]
    dtype: torch.dtype
    requires_grad: bool
    value: Optional[torch.Tensor] = None   # a buffer's registered value
    vocab: int = 0                         # token ids x of a language model: their range


@dataclass
class Joint:
    graph_module: object            # torch.fx.GraphModule of the joint graph
    primals: List[Primal]
    tangent: object                 # fx placeholder tangents_1
    loss: object                    # fx node of the loss
    grads: List[object]             # fx node (or None) of the gradient of each primal
    wrapper: nn.Module = None
    example_inputs: list = field(default_factory=list)
    num_classes: int = 0


def example_inputs(batch, input_shape, loss, num_classes, tokens=None, declared=None):
    if tokens is not None:
        g = torch.Generator().manual_seed(0)
        return [torch.randint(tokens[1], [batch] + list(input_shape), generator=g)]
    xs = declared if declared is not None else [torch.randn([batch] + list(input_shape))]
    if loss == "xent":
        t = torch.arange(batch, dtype=torch.int64) % num_classes
        return xs + [t]
    return xs


def output_classes(model, batch, input_shape):
    """Number of classes (size of the model output's last dim), by one run
    of the model in eval mode."""
    with torch.no_grad():
        was = model.training
        model.eval()
        try:
            xs = declared_inputs(model, 1) or [torch.zeros([1] + list(input_shape))]
            out = model(*xs)
        finally:
            model.train(was)
    if isinstance(out, (tuple, list)):
        out = out[0]
    if hasattr(out, "logits"):
        out = out.logits
    return out.shape[-1]


def _decompositions():
    """ATen decompositions applied while tracing: ops 2.x emits that have
    an exact expression in ops the importer lowers (PyTorch's own
    decompositions, torch._decomp)."""
    from torch._decomp import get_decompositions
    aten = torch.ops.aten
    ops = [aten._unsafe_index,
           aten._safe_softmax, aten.rms_norm, aten._fused_rms_norm,
           aten._fused_rms_norm_backward, aten.tril, aten.triu,
           aten.masked_fill_, aten.linalg_vector_norm, aten.logsumexp,
           aten.new_ones, aten.new_zeros, aten.new_full,
           # GroupNorm, and InstanceNorm (a batch norm without running
           # statistics, over a batch tiled by repeat)
           aten.native_group_norm, aten.native_group_norm_backward,
           aten._native_batch_norm_legit.no_stats, aten.repeat,
           # activations and a reshuffle in lowered ops (exp, log1p,
           # tanh, where; views and a permute)
           aten.softplus, aten.softplus_backward, aten.elu, aten.elu_backward,
           aten.mish, aten.mish_backward, aten.pixel_shuffle, aten.pixel_unshuffle]
    table = get_decompositions([op for op in ops if op is not None])
    table[aten.convolution.default] = _conv1d_as_2d
    table[aten.convolution_backward.default] = _conv1d_backward_as_2d
    return table


def _conv1d_as_2d(x, w, b, stride, padding, dilation, transposed, output_padding, groups):
    """A 1-D convolution (transposed too) as a 2-D one of height 1 (the
    importer lowers 2-D convolutions); any other is left as it is."""
    if x.dim() != 3:
        return NotImplemented
    y = torch.ops.aten.convolution.default(
        x.unsqueeze(2), w.unsqueeze(2), b, [1] + list(stride), [0] + list(padding),
        [1] + list(dilation), transposed, [0] + list(output_padding), groups)
    return y.squeeze(2)


def _conv1d_backward_as_2d(dy, x, w, bias_sizes, stride, padding, dilation, transposed,
                           output_padding, groups, output_mask):
    """The backward of _conv1d_as_2d's convolution, the same way."""
    if x.dim() != 3:
        return NotImplemented
    dx, dw, db = torch.ops.aten.convolution_backward.default(
        dy.unsqueeze(2), x.unsqueeze(2), w.unsqueeze(2), bias_sizes, [1] + list(stride),
        [0] + list(padding), [1] + list(dilation), transposed, [0] + list(output_padding),
        groups, output_mask)
    return (dx.squeeze(2) if dx is not None else None,
            dw.squeeze(2) if dw is not None else None, db)


class _Tracing:
    """The context of the export: scaled_dot_product_attention by its math
    formula (matmul, softmax: autograd differentiates those ops, which the
    importer lowers), no oneDNN kernels (nn.LSTM then runs as its matrix
    products and gates instead of one fused mkldnn_rnn_layer),
    transformers told that it is traced (_TransformersTracing), and torch.nn's
    Transformer layers' causal-mask test left undecided (_CausalMaskUndecided)."""

    def __enter__(self):
        from torch.nn.attention import SDPBackend, sdpa_kernel
        self.ctx = [sdpa_kernel([SDPBackend.MATH]), torch.backends.mkldnn.flags(enabled=False),
                    _TransformersTracing(), _CausalMaskUndecided()]
        for c in self.ctx:
            c.__enter__()
        return self

    def __exit__(self, *exc):
        for c in reversed(self.ctx):
            c.__exit__(*exc)


class _CausalMaskUndecided:
    """torch.nn's Transformer layers compare a given mask with a causal one
    (`_detect_is_causal_mask`: `bool((mask == causal).all())`), which fake
    tensors cannot decide.  Undecided, the mask is not declared causal and
    the layers apply it as given: the same values, whatever it holds."""

    def __enter__(self):
        from torch.nn.modules import transformer
        self.mod, self.orig = transformer, transformer._detect_is_causal_mask
        orig = self.orig

        def detect(mask, is_causal=None, size=None):
            try:
                return orig(mask, is_causal, size)
            except Exception as e:   # data-dependent under the export's fake tensors
                if "DataDependent" in type(e).__name__ or "data-dependent" in str(e) \
                        or "_local_scalar_dense" in str(e):
                    return is_causal is True
                raise
        transformer._detect_is_causal_mask = detect
        return self

    def __exit__(self, *exc):
        self.mod._detect_is_causal_mask = self.orig


class _TransformersTracing:
    """transformers skips data-dependent shortcuts (`if mask.all(): ...`,
    which fake tensors cannot decide) when it knows it is being traced; its
    test does not see through AOTAutograd's functional tensors, so it is
    told while the export runs."""

    def __enter__(self):
        self.mod = sys.modules.get("transformers.masking_utils")
        if self.mod is not None and hasattr(self.mod, "is_tracing"):
            self.orig = self.mod.is_tracing
            self.mod.is_tracing = lambda *a, **k: True
        return self

    def __exit__(self, *exc):
        if self.mod is not None and hasattr(self, "orig"):
            self.mod.is_tracing = self.orig


def _fold_constants(gm):
    """Input-independent subgraphs that need an op without a lowering (the
    causal and padding masks transformers builds from `arange`) are computed
    here, on real tensors, and become constants (get_attr: the emitter's
    arith.constant).  Random and uninitialized tensors are never folded."""
    from .graph import ALIASES, RANDOM, VIEWS
    from .lowering import HANDLERS
    def handled(n):
        """Lowered: a view or alias, or a lowered op on floats or masks
        (integer arithmetic on constants, index computations, is folded)."""
        name = str(n.target)
        if name in ALIASES or name in VIEWS or getattr(n.target, "__name__", "") == "getitem":
            return True
        val = n.meta.get("val")
        return name in HANDLERS and isinstance(val, torch.Tensor) and \
            (val.dtype.is_floating_point or val.dtype == torch.bool)
    state = {}     # node -> needs folding (bool), for foldable nodes only
    for n in gm.graph.nodes:
        if n.op == "get_attr":
            state[n] = False
            continue
        if n.op != "call_function":
            continue
        name = str(n.target)
        if name in RANDOM or "empty" in name or "rand" in name or "bernoulli" in name:
            continue
        ins = n.all_input_nodes
        if not all(i in state for i in ins):
            continue
        state[n] = not handled(n) or any(state[i] for i in ins)
    # The results of the ops without a lowering that a lowered op (or one
    # reading an input) reads: what follows them (a mask broadcast over the
    # batch, a select by it) stays ops on the smaller constant.
    fold = [n for n, need in state.items() if need and not handled(n) and
            any(u not in state or handled(u) for u in n.users)]
    if not fold:
        return
    values = {}

    def value(n):
        if n in values:
            return values[n]
        if n.op == "get_attr":
            v = getattr(gm, n.target)
        else:
            args = torch.fx.node.map_arg(n.args, value)
            kwargs = torch.fx.node.map_arg(n.kwargs, value)
            v = n.target(*args, **kwargs)
        values[n] = v
        return v
    with torch.no_grad():
        for k, n in enumerate(fold):
            v = value(n)
            if not isinstance(v, torch.Tensor):
                continue
            attr = "_folded_constant%d" % k
            gm.register_buffer(attr, v.detach().clone())
            with gm.graph.inserting_before(n):
                c = gm.graph.get_attr(attr)
            c.meta["val"] = v
            n.replace_all_uses_with(c)
    gm.graph.eliminate_dead_code()


def _untie(wrapper):
    """Gives every further name of a tied parameter its own Parameter for
    the export; returns [(name, alias name, the tied Parameter)]."""
    first, tied = {}, []
    for name, p in list(wrapper.named_parameters(remove_duplicate=False)):
        if id(p) not in first:
            first[id(p)] = name
            continue
        parent, _, leaf = name.rpartition(".")
        setattr(wrapper.get_submodule(parent), leaf,
                nn.Parameter(p.detach(), requires_grad=p.requires_grad))
        tied.append((first[id(p)], name, p, p.requires_grad))
    return tied


def _retie(wrapper, tied):
    """Undoes _untie; a tied parameter one of whose names the loss does not
    reach (BERT's prediction bias, read through its decoder) was frozen
    for the export (_freeze_unused) and is trainable again."""
    for _, name, p, grad in tied:
        parent, _, leaf = name.rpartition(".")
        setattr(wrapper.get_submodule(parent), leaf, p)
        p.requires_grad_(grad)


def _merge_tied(graph, primals, grads, tied):
    """Each alias's placeholder replaced by its parameter's, and its
    gradient added to the parameter's."""
    if not tied:
        return primals, grads
    index = {("model." + p.name) if p.kind == "param" else None: i
             for i, p in enumerate(primals)}
    drop = set()
    out = [n for n in graph.nodes if n.op == "output"][0]
    for name, alias, _, _ in tied:
        i, j = index[name], index[alias]
        keep, gone = primals[i], primals[j]
        gone.node.replace_all_uses_with(keep.node)
        gi, gj = grads[i], grads[j]
        if gi is not None and gj is not None:
            with graph.inserting_before(out):
                s = graph.call_function(torch.ops.aten.add.Tensor, (gi, gj))
            s.meta["val"] = gi.meta.get("val")
            if "tensor_meta" in gi.meta:
                s.meta["tensor_meta"] = gi.meta["tensor_meta"]
            grads[i] = s
        elif gi is None:
            grads[i] = gj
        drop.add(j)
    for j in sorted(drop):
        graph.erase_node(primals[j].node)
    keep = [k for k in range(len(primals)) if k not in drop]
    return [primals[k] for k in keep], [grads[k] for k in keep]


def _freeze_unused(wrapper, inputs):
    """requires_grad=False for the parameters a backward() leaves without a
    gradient; whether there was one."""
    wrapper.zero_grad(set_to_none=True)
    with _Tracing():
        wrapper(*inputs).backward()
    unused = [p for p in wrapper.parameters() if p.requires_grad and p.grad is None]
    for p in unused:
        p.requires_grad_(False)
    wrapper.zero_grad(set_to_none=True)
    return bool(unused)


def _loss_seed(gm, loss):
    """The node AOTAutograd made for d(loss)/d(loss): the first ones_like of
    the loss, or float full([], 1.0), after the loss; None if there is none."""
    after = False
    for n in gm.graph.nodes:
        if n is loss:
            after = True
            continue
        if not after or n.op != "call_function":
            continue
        name = str(n.target)
        if name.startswith("aten.ones_like") and n.args and n.args[0] is loss:
            return n
        if name.startswith("aten.full.") and list(n.args[0]) == [] and \
                isinstance(n.args[1], float) and n.args[1] == 1.0 and \
                n.kwargs.get("dtype", torch.float32).is_floating_point:
            return n
    return None


def trace_joint(model: nn.Module, batch: int, input_shape, loss: str = "sum") -> Joint:
    """Traces model+loss with AOTAutograd's export (fake tensors: nothing
    runs) and returns the joint graph in the form described above."""
    from torch._functorch.aot_autograd import aot_export_module

    model.train()
    tokens = token_model(model)
    num_classes = output_classes(model, batch, input_shape) \
        if loss == "xent" and tokens is None else 0
    declared = None if tokens is not None else declared_inputs(model, batch)
    wrapper = LossWrapper(model, loss, len(declared) if declared else 1)
    inputs = example_inputs(batch, input_shape, loss, num_classes, tokens, declared)

    def export():
        wrapper.tupled = True
        try:
            with _Tracing():
                return aot_export_module(wrapper, inputs, trace_joint=True,
                                         output_loss_index=0,
                                         decompositions=_decompositions())
        finally:
            wrapper.tupled = False
    # Tied parameters (an LM head sharing the token embedding) are traced
    # as separate parameters, then merged: one placeholder, the sum of the
    # gradients.
    tied = _untie(wrapper)
    simple = False
    try:
        try:
            gm, sig = export()
        except AssertionError as e:
            if "did not receive a gradient" in str(e) and _freeze_unused(wrapper, inputs):
                # The export wants a gradient for every trainable parameter;
                # those the loss does not reach are found by one backward()
                # and traced frozen.
                gm, sig = export()
            elif "backward_output_names" in str(e):
                # Two parameters whose gradients are one node (nn.LSTM's two
                # biases) break the export's signature; the joint export
                # without one names the primals by position.
                gm, simple = _export_simple(wrapper, inputs), True
            else:
                raise
    finally:
        _retie(wrapper, tied)
    if simple:
        primals, grads, loss_node, tangent = _read_simple(gm, wrapper, inputs, tokens)
    else:
        primals, grads, loss_node, tangent = _read_export(gm, sig, wrapper, inputs, tokens)
    graph = gm.graph
    primals, grads = _merge_tied(graph, primals, grads, tied)
    out = [n for n in graph.nodes if n.op == "output"][0]
    out.args = ([loss_node] + grads,)
    graph.eliminate_dead_code()
    _fold_constants(gm)
    fold_select_backward_sums(graph)
    _short_names(graph)
    gm.recompile()
    return Joint(gm, primals, tangent, loss_node, grads, wrapper, inputs, num_classes)


def _input_names(wrapper, inputs):
    return input_names(wrapper.n_inputs, len(inputs) > wrapper.n_inputs)


def _declared_value(wrapper, i, t):
    """A declared input that is not floating point (token ids, indices, a
    mask) keeps its values: the harness passes them (the model may index
    with them); float inputs are filled like any other."""
    declared = hasattr(wrapper.model, "remat_example_inputs") and wrapper.tokens is None
    if declared and i < wrapper.n_inputs and not t.dtype.is_floating_point:
        return t.detach().clone()
    return None
# Node names (the ops' locations) of ATen ops with long internal names.
SHORT_NAMES = {"_native_batch_norm_legit_functional": "native_batch_norm"}


def _short_names(graph):
    for n in list(graph.nodes):
        for long, short in SHORT_NAMES.items():
            if n.op == "call_function" and n.name.startswith(long):
                n._rename(short + n.name[len(long):])


def _strip(fqn):
    return fqn[len("model."):] if fqn.startswith("model.") else fqn


def _read_export(gm, sig, wrapper, inputs, tokens):
    """Primals, gradients, loss and tangent of aot_export_module's graph,
    by its signature; d(loss)/d(loss) becomes the placeholder tangents_1."""
    graph = gm.graph
    placeholders = [n for n in graph.nodes if n.op == "placeholder"]
    by_name = {n.name: n for n in graph.nodes}
    params = dict(wrapper.named_parameters(remove_duplicate=False))
    buffers = dict(wrapper.named_buffers(remove_duplicate=False))
    primals = []
    user = list(sig.user_inputs)
    for node in placeholders:
        if node.name in sig.inputs_to_parameters:
            fqn = sig.inputs_to_parameters[node.name]
            t = params[fqn]
            primals.append(Primal(node, "param", _strip(fqn), list(t.shape), t.dtype,
                                  t.requires_grad))
        elif node.name in sig.inputs_to_buffers:
            fqn = sig.inputs_to_buffers[node.name]
            t = buffers[fqn]
            primals.append(Primal(node, "buffer", _strip(fqn), list(t.shape), t.dtype,
                                  False, t.detach().clone()))
        elif node.name in user:
            i = user.index(node.name)
            t = inputs[i]
            primals.append(Primal(node, "input", _input_names(wrapper, inputs)[i],
                                  list(t.shape), t.dtype, False, _declared_value(wrapper, i, t),
                                  vocab=tokens[1] if tokens and i == 0 else 0))
        else:
            raise ImportError_("unexpected joint graph input %s" % node.name)
    # The wrapper's one output (the signature's loss_output can name a
    # buffer update, which precedes it among the outputs).
    loss_node = by_name[sig.user_outputs[0]]
    grad_of = {v: by_name[k] for k, v in sig.backward_signature.gradients_to_parameters.items()}
    grads = [grad_of.get(sig.inputs_to_parameters.get(p.node.name)) if p.kind == "param"
             else None for p in primals]
    with graph.inserting_after(placeholders[-1]):
        tangent = graph.placeholder("tangents_1")
    tangent.meta["val"] = torch.ones([])
    seed = _loss_seed(gm, loss_node)
    if seed is not None:
        seed.replace_all_uses_with(tangent)
        graph.erase_node(seed)
    return primals, grads, loss_node, tangent


def _export_simple(wrapper, inputs):
    """aot_export_joint_simple of the wrapper called functionally on
    (parameters, buffers, inputs): placeholders primals_1.. in that order
    and tangents_1; output [loss, gradient of every primal]."""
    from torch._functorch.aot_autograd import aot_export_joint_simple
    params = dict(wrapper.named_parameters(remove_duplicate=False))
    buffers = dict(wrapper.named_buffers(remove_duplicate=False))
    names = list(params) + list(buffers)

    def step(*flat):
        state = dict(zip(names, flat[:len(names)]))
        return (torch.func.functional_call(wrapper, state, tuple(flat[len(names):])),)
    with _Tracing():
        return aot_export_joint_simple(step, [*params.values(), *buffers.values(), *inputs],
                                       trace_joint=True, decompositions=_decompositions())


def _read_simple(gm, wrapper, inputs, tokens):
    graph = gm.graph
    placeholders = [n for n in graph.nodes if n.op == "placeholder"]
    prim = [n for n in placeholders if n.name.startswith("primals")]
    tang = [n for n in placeholders if n.name.startswith("tangents")]
    named = ([("param", k, p) for k, p in wrapper.named_parameters(remove_duplicate=False)] +
             [("buffer", k, b) for k, b in wrapper.named_buffers(remove_duplicate=False)] +
             [("input", n, t) for n, t in zip(_input_names(wrapper, inputs), inputs)])
    results = list([n for n in graph.nodes if n.op == "output"][0].args[0])
    if len(named) != len(prim) or len(tang) != 1 or len(results) != len(prim) + 1:
        raise ImportError_("unexpected joint graph signature: %d primals for %d parameters, "
                           "buffers and inputs; %d tangents" % (len(prim), len(named), len(tang)))
    primals = []
    names = _input_names(wrapper, inputs)
    for node, (kind, name, t) in zip(prim, named):
        value = t.detach().clone() if kind == "buffer" else \
            _declared_value(wrapper, names.index(name), t) if kind == "input" else None
        primals.append(Primal(node, kind, _strip(name) if kind != "input" else name,
                              list(t.shape), t.dtype, kind == "param" and t.requires_grad,
                              value, vocab=tokens[1] if tokens and name == "x" else 0))
    return primals, results[1:], results[0], tang[0]
