#!/usr/bin/python3
"""Build a torchvision classification model with seeded random weights and export it to ONNX.

    /usr/bin/python3 scripts/export_torchvision.py NAME OUT.onnx [--seed S] [--input 1x3x224x224]
        [--classes N] [--sample-out PREFIX]

NAME is any torchvision classification model (resnet18, resnet50, mobilenet_v2, vgg11, ...).
ViT and MaxViT are built for the input's size (their builders' image_size, from --input).
No pretrained weights are fetched: every parameter is drawn from a seeded generator (by the
model's own initialisation; inception_v3's by PyTorch's default one, see BUILDER_OPTIONS), and the
BatchNorm running statistics are set to non-trivial seeded values (mean in [-0.1, 0.1],
variance in [0.5, 1.5], weight in [0.5, 1.5], bias in [-0.1, 0.1]) so that BN folding is
exercised; resnet152 takes its statistics from seeded inputs instead (see DATA_BN_MODELS). The model is in eval mode and exported with opset 13, constant folding on and
TrainingMode.PRESERVE: torch's EVAL export would fold BatchNormalization into the Conv itself;
PRESERVE keeps the BatchNormalization nodes, which the importer then folds (and the tests
check).

VGG's AdaptiveAvgPool2d((7, 7)) and AlexNet's AdaptiveAvgPool2d((6, 6)) cannot be exported for
a feature map that does not divide their output (torch's exporter); when the features are 1x1
(inputs up to 63x63) the script replaces the pool by an identity and folds the 49 (36) copies of
each pixel into the first Linear of the classifier (the sum of its 49 (36) weight columns),
which computes exactly the same function.

Swin v2's forward zeroes the key third of its qkv bias in place (qkv_bias[length:2 * length]
.zero_()), and torch 1.13 has no export of aten::zero at opset 13: the script registers one that
computes x * 0 (the same values; torch's constant folding and the importer's fold it with the
rest of the bias, a constant).

--sample-out PREFIX writes PREFIX.in.f32 (a seeded N(0,1) input, raw float32 NCHW) and
PREFIX.out.f32 (torch's output for it, raw float32): the independent reference of the C++ float
interpreter.
"""
import argparse
import sys

import torch
import torchvision


def parse_shape(text):
    try:
        dims = [int(d) for d in text.lower().split("x")]
    except ValueError:
        dims = []
    if len(dims) != 4 or min(dims) < 1:
        raise SystemExit(f"export_torchvision: error: --input '{text}' is not NxCxHxW")
    return dims


# Builder options per model. inception_v3's own initialisation (a truncated normal of std 0.1
# whatever the fan-in) grows its activations to 1e9 with random weights, beyond any int8 scale;
# PyTorch's default initialisation (the builder's init_weights=False) keeps them near 1.
BUILDER_OPTIONS = {"inception_v3": {"init_weights": False}}


# The builders that take the input size (ViT's position embedding and MaxViT's partitions are
# sized by it): given --input's H when it is not 224 (H must equal W).
SIZED_BUILDERS = ("vit_", "maxvit_")


# The models whose BatchNorm running statistics come from seeded inputs instead of the seeded
# draw. With drawn statistics a BN does not normalise what its conv really produces, and in the
# deepest residual networks each block then multiplies the residual stream by about 1.7. The
# quantizer gives such a stream's tensors their own exponents (a residual shift), so resnet101 and
# wide_resnet101_2 run with drawn statistics, but resnet152's layer3 reaches 3.1e9, beyond the
# int8 range of any exponent the network carries (127 x 2^24). A trained network's statistics
# match its data; resnet152 gets statistics measured on DATA_BN_SAMPLES seeded N(0,1) inputs
# (the BN weight and bias stay drawn).
DATA_BN_MODELS = ("resnet152",)
DATA_BN_SAMPLES = 4


def builder_options(name, shape):
    options = dict(BUILDER_OPTIONS.get(name, {}))
    if name.startswith(SIZED_BUILDERS) and shape[2] != 224:
        if shape[2] != shape[3]:
            raise SystemExit(f"export_torchvision: error: {name} needs a square input, not "
                             f"{shape[2]}x{shape[3]}")
        options["image_size"] = shape[2]
    return options


def seeded_model(name, seed, classes, shape):
    builders = torchvision.models.list_models() if hasattr(torchvision.models, "list_models") \
        else [n for n in dir(torchvision.models) if n.islower() and not n.startswith("_")]
    if name not in builders or not callable(getattr(torchvision.models, name, None)):
        raise SystemExit(f"export_torchvision: error: unknown torchvision model '{name}'")
    torch.manual_seed(seed)
    options = builder_options(name, shape)
    model = getattr(torchvision.models, name)(num_classes=classes, **options)
    gen = torch.Generator().manual_seed(seed + 1)
    for module in model.modules():
        if isinstance(module, torch.nn.modules.batchnorm._BatchNorm):
            c = module.num_features
            module.running_mean.copy_(torch.rand(c, generator=gen) * 0.2 - 0.1)
            module.running_var.copy_(torch.rand(c, generator=gen) + 0.5)
            module.weight.data.copy_(torch.rand(c, generator=gen) + 0.5)
            module.bias.data.copy_(torch.rand(c, generator=gen) * 0.2 - 0.1)
    redraw_truncation_bounds(model, gen)
    redraw_zero_weights(model, gen)
    if name in DATA_BN_MODELS:
        measure_bn_statistics(model, shape, gen)
    return model.eval()


def measure_bn_statistics(model, shape, gen):
    """Sets every BatchNorm's running mean and variance to those of its input over one batch of
    DATA_BN_SAMPLES seeded inputs of the export's size (momentum None: the batch's own)."""
    for module in model.modules():
        if isinstance(module, torch.nn.modules.batchnorm._BatchNorm):
            module.reset_running_stats()
            module.momentum = None
    model.train()
    with torch.no_grad():
        model(torch.randn([DATA_BN_SAMPLES] + list(shape[1:]), generator=gen))


def redraw_truncation_bounds(model, gen):
    """Redraws the weights that torch's trunc_normal_(std=0.02) left at its bounds +-2.

    ConvNeXt, Swin, MaxViT and ViT initialise with trunc_normal_(std=0.02, a=-2, b=2): its
    inverse-CDF sampler maps the float limits of its uniform draw to the bounds themselves, so a
    few weights of a large tensor are exactly +-2 (100 standard deviations), which no trained
    model has and which would set the tensor's whole int8 scale. Each is redrawn from the seeded
    generator as N(0, std of its tensor)."""
    with torch.no_grad():
        for p in model.parameters():
            if p.numel() < 1000:
                continue
            bound = p.abs() == 2.0
            std = float(p[~bound].std())
            if bound.any() and std < 0.1:
                p[bound] = torch.randn(int(bound.sum()), generator=gen) * std


def redraw_zero_weights(model, gen):
    """Draws the weights a builder leaves at zero from the seeded generator: ViT's classifier
    head as PyTorch's default Linear initialisation would (uniform in +-1/sqrt(fan_in)), as an
    all-zero output would make every comparison trivial; ViT's class token N(0, 1), the scale
    of the patch tokens it joins (a zero token plus the position embedding's 0.02 is below one
    int8 step of the tokens' shared scale, and the LayerNorm after it would normalise noise)."""
    with torch.no_grad():
        for name, p in model.named_parameters():
            if p.dim() < 2 or p.any():
                continue
            if name.endswith("class_token"):
                p.copy_(torch.randn(p.shape, generator=gen))
            else:
                bound = 1.0 / p[0].numel() ** 0.5
                p.copy_((torch.rand(p.shape, generator=gen) * 2 - 1) * bound)


def fold_adaptive_pool(model, shape):
    """Replaces the adaptive pool of VGG (7x7) or AlexNet (6x6) of a 1x1 feature map by the
    equivalent first Linear of the classifier."""
    if not isinstance(model, (torchvision.models.VGG, torchvision.models.AlexNet)):
        return
    with torch.no_grad():
        feat = model.features(torch.zeros(shape))
    if feat.shape[-2:] != (1, 1):
        return
    size = model.avgpool.output_size
    copies = size * size if isinstance(size, int) else size[0] * size[1]
    at = next(i for i, m in enumerate(model.classifier) if isinstance(m, torch.nn.Linear))
    fc = model.classifier[at]
    folded = torch.nn.Linear(feat.shape[1], fc.out_features)
    with torch.no_grad():
        folded.weight.copy_(fc.weight.view(fc.out_features, feat.shape[1], copies).sum(dim=2))
        folded.bias.copy_(fc.bias)
    model.avgpool = torch.nn.Identity()
    model.classifier[at] = folded


def zero_symbolic(g, self, *args):
    """aten::zero (Swin v2's qkv_bias[length:2 * length].zero_() in its forward) as x * 0."""
    return g.op("Mul", self, g.op("Constant", value_t=torch.tensor(0.0)))


def register_zero_export():
    """Teaches torch's exporter (1.13, opset 13: no symbolic of its own) aten::zero."""
    torch.onnx.register_custom_op_symbolic("aten::zero", zero_symbolic, 13)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("name")
    ap.add_argument("out")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--input", default="1x3x224x224")
    ap.add_argument("--classes", type=int, default=1000)
    ap.add_argument("--sample-out", default="")
    args = ap.parse_args()
    shape = parse_shape(args.input)
    model = seeded_model(args.name, args.seed, args.classes, shape)
    fold_adaptive_pool(model, shape)
    example = torch.randn(shape, generator=torch.Generator().manual_seed(args.seed + 2))
    register_zero_export()
    torch.onnx.export(model, example, args.out, opset_version=13, do_constant_folding=True,
                      training=torch.onnx.TrainingMode.PRESERVE, input_names=["input"],
                      output_names=["output"])
    if args.sample_out:
        with torch.no_grad():
            out = model(example)
        example.numpy().astype("<f4").tofile(args.sample_out + ".in.f32")
        out.numpy().astype("<f4").tofile(args.sample_out + ".out.f32")
    print(f"{args.name}: input {args.input}, seed {args.seed} -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
