"""An R script was windowed by lines, every passage headed by the file's name alone: 'where do we compute churn'
found 'survival' and no function. R's functions are assignments (``fit <- function(df) …``) and head their
passages now (ingest.code_forms.r_functions)."""
from __future__ import annotations

import os
from pathlib import Path

from ingest.parse import parse_file
from search.query.engine import Engine
from tests.conftest import ingest, write_tree

R = """library(survival)

# Kaplan-Meier curve of time to churn by plan
fit_churn_curve <- function(df) {
  df <- df %>% mutate(event = as.integer(churned == 1))
  survfit(Surv(tenure_days, event) ~ plan, data = df)
}

threshold = 90
cox_model = function(df) coxph(Surv(tenure_days, churned) ~ customer_ltv, data = df)

report <<- function(fit) {
  summarise_fit <- function(x) {
    summary(x)$coefficients
  }
  summarise_fit(fit)
}
"""


def test_an_r_scripts_functions_head_its_passages(immediate, tmp_path):
    doc = parse_file("R/survival.R", R.encode())
    assert [(s.start_line, s.end_line, s.heading_path) for s in doc.sections] == [
        (1, 2, ["survival"]), (3, 7, ["survival", "fit_churn_curve"]), (8, 9, ["survival"]),
        (10, 11, ["survival", "cox_model"]), (12, 17, ["survival", "report"])]
    root = write_tree(tmp_path / "ds", {"R/survival.R": R, "notes.md": "# Notes\n\nchurn work\n"})
    assert ingest(root, "ds")["published"]["failures"] == []
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db")
    hit = engine.search("coxph", limit=3, mode="keyword").hits[0]
    assert hit.path == "R/survival.R" and hit.start_line <= 10 <= hit.end_line and "cox_model" in str(hit.heading_path)
