"""``bpe-lab code`` (engine.analysis.code_cost): the transforms (reindent, names) and the counts,
as tiktoken counts them on GPT-2's ranks."""

from __future__ import annotations

import json

from fetch_tokenizers import needed, npm_encoding
from local_index import run

from engine.analysis.code_cost import camel_case, dedent_all, indent_unit, reindent, snake_case

SOURCE = '''def read_file(path_name):
    with open(path_name) as handle:
        for line_no, line in enumerate(handle):
            if line.strip():
                yield line_no, line
    return None


class LineReader:
    def readAllLines(self, filePath):
        return list(read_file(filePath))
'''


def test_reindenting_and_renaming():
    assert indent_unit(SOURCE) == 4
    tabs = reindent(SOURCE, "\t")
    assert "\t\t\tif line.strip():" in tabs and reindent(tabs, "    ") == SOURCE
    assert reindent(SOURCE, "  ").splitlines()[3] == "      if line.strip():"
    assert dedent_all(SOURCE).splitlines()[3] == "if line.strip():"
    assert "def readFile(pathName):" in camel_case(SOURCE) and "for lineNo, line" in camel_case(SOURCE)
    assert "def read_all_lines(self, file_path):" in snake_case(SOURCE)


def test_the_costs_count_as_tiktoken_does(tmp_path):
    enc = npm_encoding("r50k_base")
    path = needed("tiktoken-npm/r50k_base.json")
    source = tmp_path / "reader.py"
    source.write_text(SOURCE, encoding="utf-8")
    code, out, err = run("code", "-t", str(path), str(source), "--json")
    assert code == 0, err
    got = json.loads(out)[str(path)]
    assert got["tokens"] == len(enc.encode(SOURCE)) and got["lines"] == 11
    assert got["indentation"] == len(enc.encode(SOURCE)) - len(enc.encode(dedent_all(SOURCE))) > 0
    assert got["variants"]["tabs"] == len(enc.encode(reindent(SOURCE, "\t")))
    assert got["variants"]["camelCase"] == len(enc.encode(camel_case(SOURCE)))
