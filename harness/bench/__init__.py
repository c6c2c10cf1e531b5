"""``python -m harness bench``: the reference against ``tokenizers``, side by side."""
