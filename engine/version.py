"""bpe-lab's version, in one place: ``engine.__version__`` and the chunk-count tables' metadata."""

VERSION = "0.1.0"
