"""delta2bbox_cls84: the same decode on class-specific deltas, (R, 84) for 21 classes.

A Faster R-CNN bbox head without class-agnostic regression predicts one box
per class (20 VOC classes and background): the stride-4 column views then
span 84 columns, and every write lands on 21 interleaved columns at once.
The code is `delta2bbox`'s; only the input layout differs.
"""

from __future__ import annotations

from .delta2bbox import inputs_for, jax_at, jax_restructured, numpy_fn, torch_fn

__all__ = ["META", "jax_at", "jax_restructured", "make_inputs", "numpy_fn", "torch_fn"]

META = {
    "origin": "mmdet Faster R-CNN Shared2FCBBoxHead, class-specific regression "
    "(21 classes x 4)",
    "views": "stride-4 column views [:, k::4] over 84 columns; stride-2 views; newaxis views",
    "inplace": "strided writes of (R, 21) blocks into a fresh (R, 84) array; "
    "np.clip(out=) on views",
}

make_inputs = inputs_for(21)
