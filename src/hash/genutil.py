# SPDX-License-Identifier: MIT OR Apache-2.0
"""Shared helper of the constant-header generators in this folder."""
import sys


def write_header(path, text, check=False):
    """Writes `text` to `path`; with check, only compares and reports.

    Returns a process exit status: 0 when written or up to date, 1 when the
    file on disk differs from what the generator would write.
    """
    if check:
        try:
            with open(path, "r", encoding="utf-8") as f:
                current = f.read()
        except OSError:
            current = None
        if current != text:
            sys.stderr.write("%s is out of date: rerun its generator\n" % path)
            return 1
        print("%s is up to date" % path)
        return 0
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)
    print("wrote %s" % path)
    return 0
