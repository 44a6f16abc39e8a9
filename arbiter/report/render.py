"""The HTML the arbiter writes, from Jinja2 templates (``arbiter/report/templates/``) with autoescape.

Every value put into a page is escaped by the template engine, in text and in attributes
alike, unless it is :class:`markupsafe.Markup`, which only :func:`render` makes: one
template's output placed into another (the report's knockout bracket).  So no name, tag or
engine output can bring markup into a page, and no call site has to remember to escape it.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from jinja2 import Environment
    from markupsafe import Markup


@functools.cache
def environment(*packages: str) -> Environment:
    """The Jinja2 environment of the templates of ``packages`` (each one's ``templates/``, the
    first that has a name wins), configured as every page of the project is: autoescape on.
    Jinja2 is imported here, at the first page, not with the arbiter (a tenth of a second of
    every command that writes no HTML)."""
    from jinja2 import ChoiceLoader, Environment, PackageLoader, StrictUndefined

    env = Environment(
        loader=ChoiceLoader([PackageLoader(package, "templates") for package in packages]),
        autoescape=True,  # every template is HTML
        undefined=StrictUndefined,  # a misspelt name fails the render instead of printing nothing
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    # ``{{ value|fmt(".1f") }}``: Python's format(), so the numbers read as in the text output.
    env.filters["fmt"] = format
    return env


def render(template: str, **context: Any) -> Markup:
    """``arbiter/report/templates/<template>`` rendered with ``context`` (escaped: see the module docstring)."""
    from markupsafe import Markup

    return Markup(environment("arbiter.report").get_template(template).render(**context))
