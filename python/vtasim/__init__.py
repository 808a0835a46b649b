"""vtasim: the VTA accelerator simulator from Python.

    import vtasim
    cfg = vtasim.Config("pynq", LOG_BUS_WIDTH=7)         # preset or file, keys overridden
    r = vtasim.conv2d(cfg, layer="resnet18.C8", backend="cycle")
    print(r["cycles"], r["stats"]["gemm_counter"], r["output"].shape)
    net = vtasim.network("resnet18", cfg, backend="fsim")  # per-layer table in net["layers"]
    vtasim.sweep("configs/sweeps/quick.json", "quick.sqlite", jobs=2)
    rows = vtasim.sweep_results("quick.sqlite")            # list of dicts (sweep_dataframe: pandas)

Errors raise vtasim.Error (ConfigError for configs, ProgramError for programs).
"""
from ._vtasim import (Config, ConfigError, Error, Program, ProgramError, backends, conv2d,
                      matmul, network, schedules, sweep, sweep_results)

__all__ = ["Config", "ConfigError", "Error", "Program", "ProgramError", "backends", "conv2d",
           "matmul", "network", "schedules", "sweep", "sweep_results", "sweep_dataframe",
           "layer_table"]


def sweep_dataframe(db):
    """The rows of a sweep's results database as a pandas DataFrame (pandas must be installed;
    sweep_results(db) gives the same rows as a list of dicts without it)."""
    import pandas
    return pandas.DataFrame(sweep_results(db))


def layer_table(result):
    """The per-layer rows of a network() result as a list of flat dicts (or a pandas DataFrame
    when pandas is installed and as_dataframe() is used on the list)."""
    rows = []
    for layer in result["layers"]:
        row = {k: v for k, v in layer.items() if k not in ("stats", "schedule", "epilogue")}
        row.update({f"stats.{k}": v for k, v in layer["stats"].items() if not isinstance(v, dict)})
        rows.append(row)
    return rows
