"""``TensorType``: the Python side of a ranked tensor type, read from MLIR types by the ten
thousand in a lowering, so without a second check of what MLIR already holds."""

import pytest

from s4tf.core.errors import DTypeError, ShapeError
from s4tf.core.mlir import ir, new_context
from s4tf.dialects.types import DTYPES, TensorType


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(), (0,), (3, 1, 4), (None, 2), (None, None)])
def test_a_type_read_back_from_mlir_equals_the_one_written(shape, dtype):
    written = TensorType(shape, dtype)
    with new_context(), ir.Location.unknown():
        read = TensorType.from_mlir(written.to_mlir())
    assert read == written and hash(read) == hash(written) and type(read.shape) is tuple
    assert str(read) == written.mlir_text


def test_an_element_type_without_a_dtype_is_refused():
    with new_context(), ir.Location.unknown():
        complex_type = ir.RankedTensorType.get([2], ir.ComplexType.get(ir.F32Type.get()))
        with pytest.raises(DTypeError, match="unknown dtype 'complex<f32>'"):
            TensorType.from_mlir(complex_type)


def test_a_type_built_in_python_is_checked():
    with pytest.raises(ShapeError, match=r"shape \(2, -1\) has a dimension outside 0 to 2\*\*63 - 1"):
        TensorType((2, -1), "f32")
    with pytest.raises(DTypeError, match="unknown dtype 'f128'"):
        TensorType((2,), "f128")
