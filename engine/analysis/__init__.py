"""Seeing why: compression curve, vocabulary composition, held-out evaluation, baselines,
comparisons, the tie-rule diff, and the inspector (everything there is to say about one token).
Pure Python; the WordPiece and Unigram baselines import the optional ``tokenizers`` library only
when they are built (the ``compare`` extra).
"""

from engine.analysis.alignment import SHOWN, AlignedRow, Alignment, Column, align, cuts_of
from engine.analysis.baselines import BpeSegmenter, CharTokenizer, Piece, Segmenter, WordTokenizer, split_words
from engine.analysis.branches import BranchComparison, BranchRow, compare_branches
from engine.analysis.code_cost import CodeCost, code_cost
from engine.analysis.compare import (
    BASELINES,
    Baseline,
    Row,
    Tax,
    baseline_rows,
    build_baselines,
    languages,
    measure,
    parse_parallel,
    token_tax,
    trainer_counts,
)
from engine.analysis.composition import KINDS, LABELS, Composition, classify, composition
from engine.analysis.curve import Curve, compression_curve
from engine.analysis.glitch import VocabularyDive, vocabulary_dive
from engine.analysis.heldout import HeldOutReport, evaluate_heldout, hold_back, segmentation
from engine.analysis.inspector import MergeTree, TokenInfo, token_info
from engine.analysis.report import (
    FIGURE_SUFFIXES,
    PLOTS_HINT,
    PlotsUnavailable,
    Table,
    TableError,
    composition_table,
    curve_table,
    figure_bytes,
    heldout_table,
    merge_log_table,
    plots_available,
    read_table,
    write_figure,
    write_tables,
)
from engine.analysis.script_cost import ScriptShare, script_spans, tokens_by_script
from engine.analysis.subword import INSTALL_HINT, SubwordUnavailable, subword_available, train_unigram, train_wordpiece
from engine.analysis.tiediff import TieDiff, tie_rule_diff
from engine.analysis.vocab_diff import TextDiff, VocabDiff, by_script, text_diff, vocab_diff

__all__ = [
    "SHOWN",
    "AlignedRow",
    "Alignment",
    "Column",
    "align",
    "cuts_of",
    "CodeCost",
    "code_cost",
    "VocabularyDive",
    "vocabulary_dive",
    "ScriptShare",
    "script_spans",
    "tokens_by_script",
    "TextDiff",
    "VocabDiff",
    "by_script",
    "text_diff",
    "vocab_diff",
    "MergeTree",
    "TokenInfo",
    "token_info",
    "FIGURE_SUFFIXES",
    "PLOTS_HINT",
    "PlotsUnavailable",
    "Table",
    "TableError",
    "composition_table",
    "curve_table",
    "figure_bytes",
    "heldout_table",
    "merge_log_table",
    "plots_available",
    "read_table",
    "write_figure",
    "write_tables",
    "BASELINES",
    "baseline_rows",
    "languages",
    "INSTALL_HINT",
    "KINDS",
    "LABELS",
    "Baseline",
    "BpeSegmenter",
    "BranchComparison",
    "BranchRow",
    "CharTokenizer",
    "Composition",
    "Curve",
    "HeldOutReport",
    "Piece",
    "Row",
    "Segmenter",
    "SubwordUnavailable",
    "Tax",
    "TieDiff",
    "WordTokenizer",
    "build_baselines",
    "classify",
    "compare_branches",
    "composition",
    "compression_curve",
    "evaluate_heldout",
    "hold_back",
    "measure",
    "parse_parallel",
    "segmentation",
    "split_words",
    "subword_available",
    "tie_rule_diff",
    "token_tax",
    "train_unigram",
    "trainer_counts",
    "train_wordpiece",
]
