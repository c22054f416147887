"""Errors the HTTP layer turns into 4xx JSON: {error: {code, message, type}}."""


class BadRequest(Exception):
    """The request is wrong; nothing was changed. `status` is the HTTP status to answer with."""

    def __init__(self, message: str, code: str = "invalid_request", status: int = 400):
        super().__init__(message)
        self.message = message
        self.code = code
        self.status = status
