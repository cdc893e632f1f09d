import sys

from datasets import load_dataset

faces = load_dataset(sys.argv[1], split="train")  # the splits as the dataset card (README.md) declares
row = faces[0]  # the manifest fields as columns, the crop as a PIL image
print(len(faces), "crops;", row["source"], row["bbox"], row["score"], row["image"].size)
