# The one error type for user mistakes: the CLI prints it as one line and exits non-zero.
"""User-facing errors of the host tools."""


class UserError(Exception):
    """A mistake the user can fix (bad flag, missing port); printed as one line, no traceback."""
