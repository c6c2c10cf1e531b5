"""Expectation files of third-party subjects (data only): ``<subject>.yaml`` lists each
known divergence of that subject from ``tokenizers``. Read and checked by
``harness.judge.expectations``; recognisers in ``harness.judge.recognisers``."""
