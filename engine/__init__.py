"""bpe-lab's engine: exact, incremental, undoable BPE training and the tokenizers it makes.

Pure Python; never imports textual, rich or the app.
"""

from .config import TrainConfig
from .display import token_display, visible_text
from .pretokenize import PreTokenizer
from .tokenizer import Tokenizer, TraceStep
from .trainer import Candidate, Merge, Trainer

__all__ = [
    "Candidate",
    "Merge",
    "PreTokenizer",
    "Tokenizer",
    "TraceStep",
    "TrainConfig",
    "Trainer",
    "token_display",
    "visible_text",
]

__version__ = "0.1.0"

__bpe_lab__ = True  # tui.main checks it: this `engine` is bpe-lab's, not another distribution's
