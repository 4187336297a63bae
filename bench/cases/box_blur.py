"""box_blur: a 3x3 box filter applied in place, written with shifted views and ``+=``.

Image preprocessing and classical vision code (denoising before edge
detection, mask smoothing) written without a convolution routine: the
vertical neighbours are added through overlapping shifted views, then the
horizontal ones, and the result is written back into the caller's image.
Pixels outside the image count as zero.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from jax import lax

from ._common import side

META = {
    "origin": "image filtering (preprocessing, classical vision), a separable 3x3 box blur",
    "views": "shifted overlapping views img[1:], img[:-1], acc[:, 1:], acc[:, :-1]",
    "inplace": "acc[1:] += img[:-1] (and three more shifted +=); "
    "img[...] = out / 9 into the argument",
}


def numpy_fn(img):
    acc = img.copy()
    acc[1:] += img[:-1]
    acc[:-1] += img[1:]
    out = acc.copy()
    out[:, 1:] += acc[:, :-1]
    out[:, :-1] += acc[:, 1:]
    img[...] = out / 9.0
    return img


def make_inputs(n: int, rng: np.random.Generator) -> tuple:
    s = side(n, least=4)
    return (rng.uniform(size=(s, s)),)


def jax_at(img):
    acc = img.at[1:].add(img[:-1])
    acc = acc.at[:-1].add(img[1:])
    out = acc.at[:, 1:].add(acc[:, :-1])
    out = out.at[:, :-1].add(acc[:, 1:])
    return out / 9.0


def box_blur_pad(img):
    p = jnp.pad(img, 1)
    rows = p[1:-1] + p[:-2] + p[2:]  # NumPy's summation order, so results match bit for bit
    return (rows[:, 1:-1] + rows[:, :-2] + rows[:, 2:]) / 9.0


def box_blur_window(img):
    cols = lax.reduce_window(img, 0.0, lax.add, (3, 1), (1, 1), "SAME")
    return lax.reduce_window(cols, 0.0, lax.add, (1, 3), (1, 1), "SAME") / 9.0


jax_restructured = {"pad": box_blur_pad, "reduce_window": box_blur_window}


def torch_fn(img):
    acc = img.clone()
    acc[1:] += img[:-1]
    acc[:-1] += img[1:]
    out = acc.clone()
    out[:, 1:] += acc[:, :-1]
    out[:, :-1] += acc[:, 1:]
    img[...] = out / 9.0
    return img
