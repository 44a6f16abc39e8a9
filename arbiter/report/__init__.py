"""The HTML the arbiter writes: the event report and the Jinja2 templates every page uses."""
