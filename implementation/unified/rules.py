"""Rule ids of the unified tokenizer, declared once with their meaning.

The unified tokenizer raises the reference's own error types (``LoadError``,
``EncodeError``, ``DecodeError``); the rules below are the ones only it uses. Document
shape errors keep the reference's ids (``malformed-json``, ``invalid-type``,
``missing-field``, ``invalid-value``), and an error inside the general tokenizer.json or
the morph model keeps the rule the reference raised, with the JSON path prefixed by where
the config points at it (``$.general.tokenizer.model.vocab``).
"""

from __future__ import annotations

UNIFIED_LOAD_RULES: dict[str, str] = {
    "unknown-field": "The config has a key the schema does not define (a typo would "
    "otherwise be silently ignored).",
    "duplicate-surface-string": "Two of the special strings, placeholders and patch "
    "tokens are the same string, or one is empty.",
    "morph-byte-fallback-required": "The morph model does not declare byte_fallback: "
    "MorphBPE must be able to encode every character of a morpheme.",
    "morph-decoration-unsupported": "The morph model declares continuing_subword_prefix or "
    "end_of_word_suffix; MorphBPE's decode could not invert the decoration.",
}

UNIFIED_ENCODE_RULES: dict[str, str] = {
    "too-few-images": "The text has more image placeholders than images= has items.",
    "too-few-videos": "The text has more video placeholders than videos= has items.",
    "invalid-multimodal-item": "An item of images= or videos= does not say how many "
    "patches (frames x patches per frame) it becomes, says zero or fewer, or asks for more "
    "than 1,000,000 patch tokens (alone or with the items before it).",
    "multimodal-not-configured": "images= or videos= is given but the config has no "
    "such modality.",
    "invalid-batch": "The per-text images=/videos= lists of a batch call do not match the "
    "number of texts, or max_length is below the longest sequence.",
}

UNIFIED_DECODE_RULES: dict[str, str] = {
    "decode-unknown-id": "An id outside the unified id space (or naming no token of its "
    "track).",
}
