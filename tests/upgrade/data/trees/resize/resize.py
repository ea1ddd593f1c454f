"""Resizes fixed random images: TF 1.x code with the tf.image.resize_* family."""
import argparse
import json

import numpy as np
import tensorflow as tf


def resized(x):
    return {
        "bicubic": tf.image.resize_bicubic(x, [16, 16]),
        "bicubic_corners": tf.image.resize_bicubic(x, [16, 16], align_corners=True),
        "bilinear": tf.image.resize_bilinear(x, [16, 16]),
        "bilinear_corners": tf.image.resize_bilinear(x, [16, 16], align_corners=True),
        "nearest": tf.image.resize_nearest_neighbor(x, [9, 9]),
        "area": tf.image.resize_area(x, [7, 7]),
        "images": tf.image.resize_images(x, [10, 10]),
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    pixels = np.random.RandomState(2).randint(0, 256, size=(1, 12, 12, 2)).astype(np.float32)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 12, 12, 2])
        with tf.Session() as sess:
            values = sess.run(resized(x), {x: pixels})
    with open(args.out, "w") as f:
        json.dump({k: v.tolist() for k, v in values.items()}, f)


if __name__ == "__main__":
    main()
