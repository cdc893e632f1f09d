import glob
import sys

import torch
import webdataset as wds

shards = sorted(glob.glob(sys.argv[1] + "/faces-*.tar"))
faces = wds.WebDataset(shards, shardshuffle=False).decode("torchrgb").to_tuple("jpg", "json")
loader = torch.utils.data.DataLoader(faces.batched(16), batch_size=None)
count = 0
for images, records in loader:  # images: a float tensor, 16 x 3 x H x W
    count += len(images)
print(count, "crops;", records[-1]["source"], records[-1]["bbox"], tuple(images.shape[1:]))
