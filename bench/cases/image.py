"""Image processing cases: an in-place filter and channel normalization."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from . import Case, register


def box_blur(img):
    """3x3 box blur in place, as sums of shifted views (edges use fewer taps)."""
    acc = img.copy()
    acc[1:] += img[:-1]
    acc[:-1] += img[1:]
    out = acc.copy()
    out[:, 1:] += acc[:, :-1]
    out[:, :-1] += acc[:, 1:]
    img[...] = out / 9.0
    return img


def box_blur_at(img):
    acc = img.at[1:].add(img[:-1])
    acc = acc.at[:-1].add(img[1:])
    out = acc.at[:, 1:].add(acc[:, :-1])
    out = out.at[:, :-1].add(acc[:, 1:])
    return out / 9.0


def box_blur_pad(img):
    p = jnp.pad(img, 1)
    rows = p[:-2] + p[1:-1] + p[2:]
    return (rows[:, :-2] + rows[:, 1:-1] + rows[:, 2:]) / 9.0


def _image(n, rng):
    side = max(4, int(np.sqrt(n)))
    return (rng.uniform(size=(side, side)),)


register(Case("box_blur", box_blur, _image, box_blur_at, {"pad": box_blur_pad},
              "image filtering (preprocessing, classical vision)",
              "shifted overlapping views img[1:], img[:-1]; in-place += between views; img[...] = write-back"))


def normalize_channels(img, mean=(123.675, 116.28, 103.53), std=(58.395, 57.12, 57.375)):
    """Per-channel normalization and BGR->RGB, in place on an HxWx3 image."""
    for c in range(3):
        img[..., c] -= mean[c]
        img[..., c] /= std[c]
    img[...] = img[..., ::-1]
    return img


def normalize_channels_at(img, mean=(123.675, 116.28, 103.53), std=(58.395, 57.12, 57.375)):
    for c in range(3):
        img = img.at[..., c].add(-mean[c])
        img = img.at[..., c].divide(std[c])
    return img[..., ::-1]


def normalize_channels_vector(img, mean=(123.675, 116.28, 103.53), std=(58.395, 57.12, 57.375)):
    return ((img - jnp.array(mean)) / jnp.array(std))[..., ::-1]


def _rgb(n, rng):
    side = max(2, int(np.sqrt(n / 3)))
    return (rng.uniform(0, 255, (side, side, 3)),)


register(Case("normalize_channels", normalize_channels, _rgb, normalize_channels_at,
              {"vector": normalize_channels_vector}, "mmcv imnormalize (detector/classifier input pipeline)",
              "per-channel views img[..., c] with -= and /=; reversed view img[..., ::-1] written back"))
