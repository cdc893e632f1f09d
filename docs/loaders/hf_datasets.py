import sys

from datasets import load_dataset

faces = load_dataset("imagefolder", data_dir=sys.argv[1], split="train")
row = faces[0]  # the manifest fields as columns, the crop as a PIL image
print(len(faces), "crops;", row["source"], row["bbox"], row["score"], row["image"].size)
