"""Reports: an analysis as JSON, Markdown or an HTML review page (``document``; the page itself in
``review`` and its Jinja2 templates, the words they share in ``words``), and search trees as graphs
(``graph``). Imports ``coach`` and the layers below."""

from __future__ import annotations

from enum import StrEnum


class ReportFormat(StrEnum):
    """The formats of a report (``document.render``, ``casino-coach export``): here, not in
    ``document``, so that the command line can offer them without importing the analysis."""

    HTML = "html"
    MD = "md"
    JSON = "json"
