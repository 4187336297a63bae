"""The GPU body of the nms case's ``elena_jax_kernel`` peer (numba.cuda).

Imported only to attach it (nms._nms_kernel), where numba's CUDA target is
installed; it runs where the program runs on a GPU.
"""

from numba import cuda

THREADS = 256  # one block


def greedy_nms_gpu(boxes, order, iou_thr, keep):
    """The boxes in score order, one after another; the IoUs of a kept box with the boxes after
    it are split across the block's threads."""
    n = boxes.shape[0]
    for ia in range(n):
        cuda.syncthreads()  # NB: every suppression by the boxes before ia is written
        i = order[ia]
        if keep[i]:
            area_i = (boxes[i, 2] - boxes[i, 0]) * (boxes[i, 3] - boxes[i, 1])
            for ib in range(ia + 1 + cuda.threadIdx.x, n, THREADS):
                j = order[ib]
                w = max(min(boxes[i, 2], boxes[j, 2]) - max(boxes[i, 0], boxes[j, 0]), 0.0)
                h = max(min(boxes[i, 3], boxes[j, 3]) - max(boxes[i, 1], boxes[j, 1]), 0.0)
                area_j = (boxes[j, 2] - boxes[j, 0]) * (boxes[j, 3] - boxes[j, 1])
                if w * h / (area_i + area_j - w * h) > iou_thr:
                    keep[j] = False
