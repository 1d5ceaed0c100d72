"""What the Python examples share: each check printed as it is made, and the
verdict at the end, whose exit status is 1 if any check failed."""


class Checks:
    """The checks of one example, `name`: call it as check(ok, what)."""

    def __init__(self, name):
        self.name, self.failed = name, []

    def __call__(self, ok, what):
        print(f"  {what:<62} {'ok' if ok else 'FAILED'}")
        if not ok:
            self.failed.append(what)

    def verdict(self):
        """Prints "NAME OK", or how many checks failed; the exit status."""
        if self.failed:
            print(f"{self.name}: {len(self.failed)} check(s) FAILED")
            return 1
        print(f"{self.name} OK")
        return 0
