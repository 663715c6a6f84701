# A model that reads several inputs, declared by the class as users write
# it: image features (float), token ids (int64) and per-token weights.
import torch
import torch.nn as nn


class FeaturesAndTokens(nn.Module):
    def __init__(self, vocab=50, dim=16, classes=5):
        super().__init__()
        self.vocab = vocab
        self.embed = nn.Embedding(vocab, dim)
        self.proj = nn.Linear(12, dim)
        self.mix = nn.Sequential(nn.Linear(2 * dim, dim), nn.GELU(), nn.LayerNorm(dim))
        self.head = nn.Linear(dim, classes)

    def forward(self, feats, ids, weights):
        tokens = (self.embed(ids) * weights.unsqueeze(-1)).sum(1)
        h = self.mix(torch.cat([self.proj(feats), tokens], dim=-1))
        return self.head(h)

    def remat_example_inputs(self, batch):
        g = torch.Generator().manual_seed(0)
        return (torch.randn(batch, 12, generator=g),
                torch.randint(self.vocab, (batch, 8), generator=g),
                torch.rand(batch, 8, generator=g))


class NotTensors(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
        return self.lin(x)

    def remat_example_inputs(self, batch):
        return [[1.0, 2.0]]
