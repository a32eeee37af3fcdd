"""s4tf: stage Python functions into an MLIR tensor dialect and run them with IREE.

```python
import numpy as np, s4tf

@s4tf.function
def predict(w, b, x):
    return s4tf.tanh(x @ w + b)

y = predict(np.ones((3, 2), np.float32), np.zeros(2, np.float32), np.ones((4, 3), np.float32))
np.asarray(y)
```
"""

import ml_dtypes
import numpy as np

from s4tf import random, tree_util
from s4tf.arrays import (
    array_api, contractions, creation, math_functions, numpy_api, numpy_math, shaping, sorting, statistics,
)
from s4tf.staging import dispatch, tensor_methods  # dispatch: eager execution, where no trace takes ops
from s4tf.arrays.array_api import *  # noqa: F403  (array_api.__all__: its names, listed once)
from s4tf.transforms.autodiff import grad, jvp, saved_residuals, value_and_grad, vjp
from s4tf.transforms.vmap import vmap
from s4tf.transforms.jacobians import hessian, jacfwd, jacrev
from s4tf.transforms.check_grads import check_grads
from s4tf.arrays.contractions import *  # noqa: F403  (contractions.__all__: its names, listed once)
from s4tf.arrays.creation import *  # noqa: F403  (creation.__all__: its names, listed once)
from s4tf.staging.structured_control import cond, fori_loop, while_loop
from s4tf.transforms.scan import scan
from s4tf.transforms.custom_derivatives import derivative
from s4tf.transforms.custom_batching import batching_rule
from s4tf.transforms.remat import remat
from s4tf import checkpoint  # model files; calling s4tf.checkpoint(fn) as jax.checkpoint points to s4tf.remat
from s4tf.transforms.differentiable import move, no_derivative
from s4tf.pytree import register_pytree_node, register_pytree_node_class
from s4tf.deploy import (  # noqa: A004  (s4tf.compile)
    DeployableModule, DeployedModule, compile, load, load_parameters, save_parameters,
)
from s4tf.core.errors import (
    CompilationError, DeviceError, DTypeError, OpAttributeError, S4tfError, ShapeError, SlowCompileWarning, StagingError, ZeroDerivativeWarning,
)
from s4tf.staging.first_call import get_first_call, set_first_call
from s4tf.staging.host import host
from s4tf.staging.recompiles import RecompileWarning
from s4tf.staging.autograph.convert import AutoGraphWarning
from s4tf.arrays.indexing import ImmutableTensorError, IndexingError, gather, getitem, scatter, take, take_along_axis
from s4tf.lazy_tensors.mode import get_mode, lazy, set_mode
from s4tf.lazy_tensors.trace import LazyStats, LazyTraceWarning, barrier, lazy_stats
from s4tf.core.locations import name_scope
from s4tf.arrays.math_functions import *  # noqa: F403  (math_functions.__all__: its names, listed once)
from s4tf.arrays.numpy_api import *  # noqa: F403  (numpy_api.__all__: its names, listed once)
from s4tf.arrays.numpy_math import *  # noqa: F403  (numpy_math.__all__: its names, listed once)
from s4tf.arrays.shaping import *  # noqa: F403  (shaping.__all__: its names, listed once)
from s4tf.arrays.statistics import *  # noqa: F403  (statistics.__all__: its names, listed once)
from s4tf.arrays.sorting import *  # noqa: F403  (sorting.__all__: its names, listed once)
from s4tf.staging.function import Lowered, StagedFunction, function
from s4tf.staging.printing import make_jaxpr
from s4tf.staging.tensor import Tensor
from s4tf.staging.tensor_methods import TensorAttributeError, TensorMethodError
from s4tf.core.version import __version__
from s4tf import lax, linalg, scipy  # after the arrays modules, which they compose
from s4tf import nn  # last: its layers use the functions above
from s4tf import example_libraries  # stax builds on nn

tensor_methods.attach()
array_api.attach()

float16, float32, float64 = np.float16, np.float32, np.float64
bfloat16 = ml_dtypes.bfloat16
int8, int32, int64, bool_ = np.int8, np.int32, np.int64, np.bool_
bool = bool_  # noqa: A001  (the Array API's name)

__all__ = [
    "lax", "linalg", "scipy", "nn", "example_libraries", "random", "tree_util", "function", "get_first_call", "set_first_call", "host", "StagedFunction", "compile", "load", "save_parameters", "load_parameters", "DeployableModule", "DeployedModule", "grad", "value_and_grad", "jvp", "vjp", "vmap", "jacfwd", "jacrev", "hessian", "check_grads", "make_jaxpr", "derivative", "batching_rule", "remat", "saved_residuals", "no_derivative", "move", "register_pytree_node", "register_pytree_node_class", "scan", "Lowered", "Tensor", "name_scope",
    "cond", "while_loop", "fori_loop",
    "lazy", "set_mode", "get_mode", "barrier", "lazy_stats", "LazyStats", "LazyTraceWarning",
    "S4tfError", "ShapeError", "DTypeError", "DeviceError", "OpAttributeError", "StagingError", "CompilationError",
    "ZeroDerivativeWarning", "SlowCompileWarning", "RecompileWarning", "AutoGraphWarning", "IndexingError", "ImmutableTensorError", "TensorMethodError", "TensorAttributeError", "gather", "getitem", "scatter", "take", "take_along_axis",
    "float16", "float32", "float64", "bfloat16", "int8", "int32", "int64", "bool_", "bool",
    *numpy_api.__all__,
    *math_functions.__all__,
    *numpy_math.__all__,
    *shaping.__all__,
    *statistics.__all__,
    *sorting.__all__,
    *creation.__all__,
    *contractions.__all__,
    *array_api.__all__,
]
