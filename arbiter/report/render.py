"""The HTML the arbiter writes, from Jinja2 templates (``arbiter/report/templates/``) with autoescape.

Every value put into a page is escaped by the template engine, in text and in attributes
alike, unless it is :class:`markupsafe.Markup`, which only :func:`render` makes: one
template's output placed into another (the report's knockout bracket).  So no name, tag or
engine output can bring markup into a page, and no call site has to remember to escape it.
"""

from __future__ import annotations

from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup

_ENVIRONMENT = Environment(
    loader=PackageLoader("arbiter.report", "templates"),
    autoescape=True,              # every template is HTML
    undefined=StrictUndefined,    # a misspelt name fails the render instead of printing nothing
    trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True,
)
# ``{{ value|fmt(".1f") }}``: Python's format(), so the numbers read as in the text output.
_ENVIRONMENT.filters["fmt"] = format


def render(template: str, **context: Any) -> Markup:
    """``arbiter/report/templates/<template>`` rendered with ``context`` (escaped: see the module docstring)."""
    return Markup(_ENVIRONMENT.get_template(template).render(**context))
