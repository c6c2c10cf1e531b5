"""The harness' vocabulary: cases, outcomes, observations, profiles, pins, resources and
canonical files. Imports nothing else of the harness."""
