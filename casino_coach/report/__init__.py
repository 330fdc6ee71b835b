"""Reports: an analysis as JSON, Markdown or an HTML page (``document``), and search trees as graphs
(``graph``). Imports ``coach`` and the layers below."""
