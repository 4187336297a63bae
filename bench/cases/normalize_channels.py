"""normalize_channels: per-channel normalization and BGR -> RGB, in place on an image.

After mmcv's ``imnormalize_`` (the input pipeline of mmdetection and
mmpretrain): subtract the channel mean and divide by the channel std through
channel views ``img[..., c]``, then reverse the channels by assigning a
reversed view of the image to the whole image.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from ._common import lane, side

META = {
    "origin": "mmcv imnormalize_ (detector and classifier input pipelines)",
    "views": "channel views img[..., c]; reversed view img[..., ::-1]",
    "inplace": "img[..., c] -= mean[c]; img[..., c] /= std[c]; img[...] = img[..., ::-1] "
    "(overlapping self-assignment)",
}

MEAN, STD = (123.675, 116.28, 103.53), (58.395, 57.12, 57.375)


def numpy_fn(img, mean=MEAN, std=STD):
    for c in range(3):
        img[..., c] -= mean[c]
        img[..., c] /= std[c]
    img[...] = img[..., ::-1]
    return img


def make_inputs(n: int, rng: np.random.Generator) -> tuple:
    s = side(n, per_cell=3, least=2)
    return (rng.uniform(0, 255, (s, s, 3)),)


def jax_at(img, mean=MEAN, std=STD):
    for c in range(3):
        img = img.at[..., c].add(-mean[c])
        img = img.at[..., c].divide(std[c])
    return img[..., ::-1]


def normalize_vector(img, mean=MEAN, std=STD):
    return ((img - jnp.array(mean)) / jnp.array(std))[..., ::-1]


def normalize_lanes(img, mean=MEAN, std=STD):
    k = lane(img.shape)
    m = jnp.where(k == 0, mean[2], jnp.where(k == 1, mean[1], mean[0]))
    s = jnp.where(k == 0, std[2], jnp.where(k == 1, std[1], std[0]))
    return (img[..., ::-1] - m) / s


jax_restructured = {"vector": normalize_vector, "lanes": normalize_lanes}


def torch_fn(img, mean=MEAN, std=STD):
    for c in range(3):
        img[..., c] -= mean[c]
        img[..., c] /= std[c]
    img[...] = img.flip(-1)  # torch has no negative-step views; flip() copies
    return img
