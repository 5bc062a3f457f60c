"""Editing saved checkpoint files in tests: what a tampered or older file looks like."""
import io
import json
import zipfile

import numpy as np


def rewrite_meta(src, dst, change) -> None:
    """Copy the checkpoint `src` to `dst` with its JSON metadata (`__meta__.npy`) passed through `change(meta)`."""
    with zipfile.ZipFile(src) as z:
        members = {n: z.read(n) for n in z.namelist()}
    meta = json.loads(str(np.load(io.BytesIO(members["__meta__.npy"]))[()]))
    change(meta)
    buf = io.BytesIO()
    np.save(buf, np.array(json.dumps(meta)))
    members["__meta__.npy"] = buf.getvalue()
    with zipfile.ZipFile(dst, "w", zipfile.ZIP_STORED) as z:
        for n, data in members.items():
            z.writestr(n, data)
