"""The conformance report: its typed, versioned model (``model``), built from a job's
result (``build``), written and read as YAML (``files``), rendered as Markdown
(``markdown``), with a JSON Schema generated from the model (``schema``)."""
