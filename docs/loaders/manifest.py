import json
import sys
from pathlib import Path

dataset = Path(sys.argv[1])
with open(dataset / "manifest.jsonl", encoding="utf-8") as manifest:
    faces = [line for line in map(json.loads, manifest) if line["status"] == "ok"]
for face in faces:
    jpeg = (dataset / face["crop"]).read_bytes()  # the crop, as its file holds it
print(len(faces), "crops;", face["source"], face["bbox"], len(jpeg), "bytes")
