"""Passes over s4tf modules, registered by kebab-case name (see :mod:`s4tf.passes.registry`)."""

from s4tf.passes import canonicalize, inlining, lower_to_stablehlo, single_row_scatters, verify  # noqa: F401  (register the passes)
from s4tf.passes.autodiff import derivatives  # noqa: F401  (registers s4tf-jvp and s4tf-vjp)
from s4tf.passes.extraction import partition, split_device_functions  # noqa: F401  (register the passes)
from s4tf.passes.iree import (  # noqa: F401  (register the passes)
    check_availability, conv_channels, conv_filters, conv_taps, donate, export, loop_dispatch, reversed_slices, runtime_loop_inits,
    stacked_pieces, unroll_host_loops,
)
from s4tf.passes import batching  # noqa: F401  (registers s4tf-batch)
from s4tf.passes.pipeline import PipelineError, build_pass_manager
from s4tf.passes.registry import PASSES

__all__ = ["PASSES", "PipelineError", "build_pass_manager"]
