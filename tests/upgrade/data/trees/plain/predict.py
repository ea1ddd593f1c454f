"""TF 2 code that needs nothing: a stateless-random linear softmax, eager."""
import argparse
import json

import tensorflow as tf


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    x = tf.random.stateless_normal([8, 4], seed=[1, 2])
    w = tf.random.stateless_uniform([4, 3], seed=[3, 4])
    y = tf.nn.softmax(tf.matmul(x, w))
    with open(args.out, "w") as f:
        json.dump({"y": y.numpy().tolist()}, f)


if __name__ == "__main__":
    main()
