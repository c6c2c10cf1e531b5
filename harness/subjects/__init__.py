"""Subjects: implementations of tokenizer.json behind one protocol (``protocol.Subject``).

``reference`` (ours, strict or lenient), ``upstream`` (HuggingFace ``tokenizers``) and
``unified`` (the morph track of our dual-track tokenizer). Nothing here judges.
"""
