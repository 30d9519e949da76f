#!/usr/bin/python3
"""The models of the CPU-speed measurements (issue 12), written to a scratch folder (not committed).

For each model NAME it writes, into OUT (default /tmp/jitctl-speed):
  NAME.pt          the TorchScript archive (traced, or scripted where the model has control flow)
  NAME.frozen.pt   torch.jit.freeze(archive.eval()): constants folded, batch norm folded into convs
  NAME.in0.pt      the input tuple (torch.save)
  NAME.onnx        torch.onnx.export of the same eager model, for ONNX Runtime (skipped on failure)
and models.json: [{"name", "kind", "set", "desc"}]. `set` is "tuned" for the models the kernels
were tuned on (ResNet-18, the encoder, the MLPs) and "unseen" for torchvision CNNs used only to
check that the speed carries over.

Weights are random (seeded), never downloaded: speed does not depend on their values, and batch
norm statistics are made non-trivial so that folding is exercised.

Usage: /usr/bin/python3 tests/bench/make_speed_models.py [--out DIR] [--only a,b] [--extra] [--more] [--fresh]
(--extra adds the "extra" set: seven more torchvision families, for checks on unseen architectures;
--more adds eleven others, two of them vision transformers; --fresh seven measured only after the
kernels were tuned)
"""
import argparse, json, os, warnings

import torch
import torch.nn as nn
import torchvision.models as tv


def randomize_bn(m):
    g = torch.Generator().manual_seed(1)
    for mod in m.modules():
        if isinstance(mod, nn.BatchNorm2d):
            with torch.no_grad():
                mod.running_mean.copy_(torch.rand(mod.running_mean.shape, generator=g) * 0.2 - 0.1)
                mod.running_var.copy_(torch.rand(mod.running_var.shape, generator=g) + 0.5)
    return m


class MLP(nn.Module):
    def __init__(self, act):
        super().__init__()
        self.fc1 = nn.Linear(1024, 4096)
        self.act = act
        self.fc2 = nn.Linear(4096, 1024)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


def encoder():
    layer = nn.TransformerEncoderLayer(d_model=256, nhead=8, dim_feedforward=1024, batch_first=True)
    return nn.TransformerEncoder(layer, num_layers=4, enable_nested_tensor=False)


def image():
    return (torch.randn(1, 3, 224, 224),)


# name -> (set, kind, description, builder, inputs)
MODELS = {
    "resnet18": ("tuned", "traced", "torchvision resnet18, 1x3x224x224", lambda: tv.resnet18(), image),
    "encoder": ("tuned", "scripted", "nn.TransformerEncoder 4 layers, d_model 256, 8 heads, ff 1024, batch_first, 1x128x256",
                encoder, lambda: (torch.randn(1, 128, 256),)),
    "mlp": ("tuned", "traced", "MLP 64x1024 -> 4096 (ReLU) -> 1024", lambda: MLP(nn.ReLU()), lambda: (torch.randn(64, 1024),)),
    "mlp_gelu": ("tuned", "traced", "MLP 64x1024 -> 4096 (GELU) -> 1024", lambda: MLP(nn.GELU()), lambda: (torch.randn(64, 1024),)),
    "mobilenet_v2": ("unseen", "traced", "torchvision mobilenet_v2, 1x3x224x224", lambda: tv.mobilenet_v2(), image),
    "resnet50": ("unseen", "traced", "torchvision resnet50, 1x3x224x224", lambda: tv.resnet50(), image),
    "squeezenet": ("unseen", "traced", "torchvision squeezenet1_1, 1x3x224x224", lambda: tv.squeezenet1_1(), image),
    "shufflenet": ("unseen", "traced", "torchvision shufflenet_v2_x1_0, 1x3x224x224", lambda: tv.shufflenet_v2_x1_0(), image),
    "efficientnet_b0": ("unseen", "traced", "torchvision efficientnet_b0, 1x3x224x224", lambda: tv.efficientnet_b0(), image),
    # --extra: more torchvision families, to check the speed on architectures nothing was tuned on
    # (hardswish and SE blocks, dense concatenations, grouped and 7x7 depthwise convolutions,
    # layer norm and GELU in a CNN).
    "mobilenet_v3_large": ("extra", "traced", "torchvision mobilenet_v3_large, 1x3x224x224", lambda: tv.mobilenet_v3_large(), image),
    "densenet121": ("extra", "traced", "torchvision densenet121, 1x3x224x224", lambda: tv.densenet121(), image),
    "googlenet": ("extra", "traced", "torchvision googlenet (no aux heads), 1x3x224x224",
                  lambda: tv.googlenet(aux_logits=False, init_weights=True), image),
    "regnet_y_400mf": ("extra", "traced", "torchvision regnet_y_400mf, 1x3x224x224", lambda: tv.regnet_y_400mf(), image),
    "mnasnet1_0": ("extra", "traced", "torchvision mnasnet1_0, 1x3x224x224", lambda: tv.mnasnet1_0(), image),
    "resnext50_32x4d": ("extra", "traced", "torchvision resnext50_32x4d, 1x3x224x224", lambda: tv.resnext50_32x4d(), image),
    "convnext_tiny": ("extra", "traced", "torchvision convnext_tiny, 1x3x224x224", lambda: tv.convnext_tiny(), image),
    # --more: a third set, first measured in the tenth session (plain stacks without batch norm,
    # wide bottlenecks, fused MBConv, a 299x299 inception, and two vision transformers).
    "alexnet": ("more", "traced", "torchvision alexnet, 1x3x224x224", lambda: tv.alexnet(), image),
    "vgg11_bn": ("more", "traced", "torchvision vgg11_bn, 1x3x224x224", lambda: tv.vgg11_bn(), image),
    "resnet34": ("more", "traced", "torchvision resnet34, 1x3x224x224", lambda: tv.resnet34(), image),
    "wide_resnet50_2": ("more", "traced", "torchvision wide_resnet50_2, 1x3x224x224", lambda: tv.wide_resnet50_2(), image),
    "mobilenet_v3_small": ("more", "traced", "torchvision mobilenet_v3_small, 1x3x224x224", lambda: tv.mobilenet_v3_small(), image),
    "shufflenet_v2_x0_5": ("more", "traced", "torchvision shufflenet_v2_x0_5, 1x3x224x224", lambda: tv.shufflenet_v2_x0_5(), image),
    "regnet_x_400mf": ("more", "traced", "torchvision regnet_x_400mf, 1x3x224x224", lambda: tv.regnet_x_400mf(), image),
    "efficientnet_v2_s": ("more", "traced", "torchvision efficientnet_v2_s, 1x3x224x224", lambda: tv.efficientnet_v2_s(), image),
    "inception_v3": ("more", "traced", "torchvision inception_v3 (no aux head), 1x3x299x299",
                     lambda: tv.inception_v3(aux_logits=False, init_weights=True), lambda: (torch.randn(1, 3, 299, 299),)),
    "vit_b_16": ("more", "traced", "torchvision vit_b_16, 1x3x224x224", lambda: tv.vit_b_16(), image),
    "swin_t": ("more", "traced", "torchvision swin_t, 1x3x224x224", lambda: tv.swin_t(), image),
    # --fresh: a fourth set, first measured in the fifteenth session, after the kernels were tuned
    # (RegNets of 24- and 16-channel groups, channel counts off the vector width, larger SE and
    # shuffle networks, SqueezeNet 1.0's 7x7 stem, ViT with 32x32 patches).
    "regnet_x_1_6gf": ("fresh", "traced", "torchvision regnet_x_1_6gf, 1x3x224x224", lambda: tv.regnet_x_1_6gf(), image),
    "regnet_y_800mf": ("fresh", "traced", "torchvision regnet_y_800mf, 1x3x224x224", lambda: tv.regnet_y_800mf(), image),
    "mnasnet0_5": ("fresh", "traced", "torchvision mnasnet0_5, 1x3x224x224", lambda: tv.mnasnet0_5(), image),
    "efficientnet_b1": ("fresh", "traced", "torchvision efficientnet_b1, 1x3x224x224", lambda: tv.efficientnet_b1(), image),
    "shufflenet_v2_x1_5": ("fresh", "traced", "torchvision shufflenet_v2_x1_5, 1x3x224x224", lambda: tv.shufflenet_v2_x1_5(), image),
    "squeezenet1_0": ("fresh", "traced", "torchvision squeezenet1_0, 1x3x224x224", lambda: tv.squeezenet1_0(), image),
    "vit_b_32": ("fresh", "traced", "torchvision vit_b_32, 1x3x224x224", lambda: tv.vit_b_32(), image),
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="/tmp/jitctl-speed")
    ap.add_argument("--only", default="")
    ap.add_argument("--extra", action="store_true", help="also (or, with --only, only) the \"extra\" set")
    ap.add_argument("--more", action="store_true", help="also (or, with --only, only) the \"more\" set")
    ap.add_argument("--fresh", action="store_true", help="also (or, with --only, only) the \"fresh\" set")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    only = set(a.only.split(",")) if a.only else None
    index = []
    for name, (group, kind, desc, build, inputs) in MODELS.items():
        if (only and name not in only) or (group == "extra" and not a.extra) or (group == "more" and not a.more) or (group == "fresh" and not a.fresh):
            continue
        torch.manual_seed(0)
        eager = randomize_bn(build()).eval()
        args = inputs()
        with torch.no_grad():
            m = torch.jit.script(eager) if kind == "scripted" else torch.jit.trace(eager, args)
        m = m.eval()
        m.save(os.path.join(a.out, name + ".pt"))
        torch.jit.freeze(m).save(os.path.join(a.out, name + ".frozen.pt"))
        torch.save(args, os.path.join(a.out, name + ".in0.pt"))
        onnx_path = os.path.join(a.out, name + ".onnx")
        try:
            # Grad stays enabled: the encoder then exports its ONNX-expressible slow path instead of
            # the fused aten::_transformer_encoder_layer_fwd (same function).
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                torch.onnx.export(eager, args, onnx_path, opset_version=14, do_constant_folding=True)
        except Exception as e:  # the speed script skips ONNX Runtime for this model
            print(f"{name}: no ONNX export ({str(e).splitlines()[0][:120]})")
            if os.path.exists(onnx_path):
                os.remove(onnx_path)
        index.append({"name": name, "kind": kind, "set": group, "desc": desc})
        print(f"{name}: written")
    # --only rewrites those models and keeps the others' entries.
    done = {e["name"] for e in index}
    path = os.path.join(a.out, "models.json")
    if only and os.path.exists(path):
        with open(path) as f:
            index += [e for e in json.load(f) if e["name"] not in done]
    index.sort(key=lambda e: list(MODELS).index(e["name"]) if e["name"] in MODELS else len(MODELS))
    with open(path, "w") as f:
        json.dump(index, f, indent=1)


if __name__ == "__main__":
    main()
