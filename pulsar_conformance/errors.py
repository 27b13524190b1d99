"""Exit codes and the errors that map onto them (docs/certify.md)."""

EXIT_PASS = 0
EXIT_FAIL = 1
EXIT_UNKNOWN = 2  # unknown verdict, or input the suite cannot use


class UsageError(Exception):
    """Input the suite cannot use: exit 2.

    ``problem`` says what is wrong, ``fix`` what the user should do about it; both reach
    the user verbatim, so write them for an operator, not for a developer.
    """

    def __init__(self, problem: str, fix: str | None = None):
        super().__init__(problem)
        self.problem = problem
        self.fix = fix

    def __str__(self) -> str:
        return self.problem if not self.fix else f"{self.problem}\n  fix: {self.fix}"
