"""Reports: an analysis as JSON, Markdown or an HTML review page (``document``; the page itself in
``review`` and its Jinja2 templates, the words they share in ``words``), and search trees as graphs
(``graph``). Imports ``coach`` and the layers below."""
