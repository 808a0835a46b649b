"""The model-building rules of scripts/export_torchvision.py, checked on small torch models
against statistics computed here by hand (no export, no vtasim: a few milliseconds)."""
import importlib.util
import os

import torch

SRC = os.environ.get("VTA_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))


def export_script():
    spec = importlib.util.spec_from_file_location(
        "export_torchvision", os.path.join(SRC, "scripts", "export_torchvision.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def batch_statistics(x):
    """Per-channel mean and unbiased variance over N, H and W (what a BN's running statistics
    hold after one batch with momentum None)."""
    flat = x.transpose(0, 1).reshape(x.shape[1], -1)
    return flat.mean(dim=1), flat.var(dim=1, unbiased=True)


def test_bn_statistics_come_from_seeded_inputs():
    seed = 7
    print(f"seed {seed}")
    export = export_script()
    torch.manual_seed(seed)
    model = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.BatchNorm2d(4), torch.nn.ReLU(),
                                torch.nn.Conv2d(4, 5, 1), torch.nn.BatchNorm2d(5))
    shape = [1, 3, 6, 6]
    export.measure_bn_statistics(model, shape, torch.Generator().manual_seed(seed))

    x = torch.randn([export.DATA_BN_SAMPLES, 3, 6, 6],
                    generator=torch.Generator().manual_seed(seed))
    with torch.no_grad():
        y1 = model[0](x)
        mean1, var1 = batch_statistics(y1)
        # In the measuring pass the first BN normalises with the batch's biased variance.
        biased1 = var1 * (y1.numel() / 4 - 1) / (y1.numel() / 4)
        z1 = (y1 - mean1[None, :, None, None]) / torch.sqrt(biased1[None, :, None, None] + 1e-5)
        z1 = z1 * model[1].weight[None, :, None, None] + model[1].bias[None, :, None, None]
        mean2, var2 = batch_statistics(model[3](torch.relu(z1)))
    torch.testing.assert_close(model[1].running_mean, mean1, rtol=1e-4, atol=1e-5)
    torch.testing.assert_close(model[1].running_var, var1, rtol=1e-4, atol=1e-5)
    torch.testing.assert_close(model[4].running_mean, mean2, rtol=1e-4, atol=1e-5)
    torch.testing.assert_close(model[4].running_var, var2, rtol=1e-4, atol=1e-5)

