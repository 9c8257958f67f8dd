"""Render the README's report grid (docs/screenshots/report_grid.png): the LLMJudge example
of issue 31 (Olz-gpt4o against h2oloo-fewself) through ``Evaluation.grid().to_latex()``,
compiled by pdflatex, drawn by MuPDF's ``mutool`` at 200 dpi and trimmed with Pillow.

    python scripts/render_report_grid.py            # writes docs/screenshots/report_grid.png
"""
from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "screenshots" / "report_grid.png"


def main() -> int:
    from PIL import Image, ImageChops, ImageOps

    from tiedrank import evaluate, read_qrels, read_run

    for tool in ("pdflatex", "mutool"):
        if shutil.which(tool) is None:
            print(f"render_report_grid: {tool} is not installed (apt-get install -y "
                  "texlive-latex-base texlive-latex-recommended mupdf-tools)", file=sys.stderr)
            return 2
    data = ROOT / "sample_data" / "llmjudge"
    qrels = read_qrels(data / "qrels.test.txt")
    runs = [read_run(data / "runs" / f"{name}.txt") for name in ("Olz-gpt4o", "h2oloo-fewself")]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        ev = evaluate(runs, qrels, ["RR", "nDCG@10"], ties="all", rel_level=2)
        latex = ev.to_latex(pairs="baseline", correction="none", trec_eval=True)
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        (work / "doc.tex").write_text(
            "\\documentclass{article}\n\\usepackage{booktabs}\n"
            "\\usepackage[paperwidth=15cm,paperheight=8cm,margin=0.4cm]{geometry}\n"
            "\\pagestyle{empty}\n\\begin{document}\n" + latex + "\\end{document}\n")
        subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "doc.tex"],
                       cwd=work, check=True, capture_output=True)
        subprocess.run(["mutool", "draw", "-q", "-r", "200", "-o", "page.png", "doc.pdf", "1"],
                       cwd=work, check=True, capture_output=True)
        page = Image.open(work / "page.png").convert("RGB")
    box = ImageChops.difference(page, Image.new("RGB", page.size, (255, 255, 255))).getbbox()
    ImageOps.expand(page.crop(box), border=24, fill="white").save(OUT, optimize=True)
    print(f"wrote {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
