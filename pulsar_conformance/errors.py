"""Exit codes and the errors that map onto them (docs/ci-gating.md has the one table).

A CI gate reads the exit code alone, so each outcome it must tell apart has a code of its own:
a verdict (0 pass, 1 fail, 2 unknown), input the suite cannot use (64, sysexits' EX_USAGE), an
interrupted run (130, the shell's 128 + SIGINT) and a defect of the suite itself (70, EX_SOFTWARE),
which must never read as the product failing (1).
"""

EXIT_PASS = 0
EXIT_FAIL = 1
EXIT_UNKNOWN = 2  # an unknown verdict: the run could not reach what a requirement is about
EXIT_BAD_INPUT = 64  # EX_USAGE: an option, file or environment value the suite cannot use; nothing ran
EXIT_INTERNAL = 70  # EX_SOFTWARE: the suite crashed (a traceback); neither a verdict nor the user's fault
EXIT_INTERRUPTED = 130  # Ctrl-C or SIGTERM


class UsageError(Exception):
    """Input the suite cannot use: exit ``EXIT_BAD_INPUT`` (64).

    ``problem`` says what is wrong, ``fix`` what the user should do about it; both reach
    the user verbatim, so write them for an operator, not for a developer.
    """

    def __init__(self, problem: str, fix: str | None = None):
        super().__init__(problem)
        self.problem = problem
        self.fix = fix

    def __str__(self) -> str:
        return self.problem if not self.fix else f"{self.problem}\n  fix: {self.fix}"
