#!/usr/bin/python3
# ghee dump-free-space --format json on stdin, as fsview.py prints it
import json
import sys

doc = json.load(sys.stdin)
for bg in doc["block_groups"]:
    print(bg["start"], bg["length"], bg["used"], bg["free"], bg["free_extents"],
          bg["largest_free_extent"])
