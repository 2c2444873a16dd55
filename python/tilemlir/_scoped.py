"""Objects that are in effect inside a `with` block (TVM's PassContext and
Target): each direct subclass of Scoped keeps one stack of those entered,
which its own subclasses share."""


class Scoped:
    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if Scoped in cls.__bases__:
            cls._stack = []

    def __enter__(self):
        self._stack.append(self)
        return self

    def __exit__(self, *exc):
        self._stack.remove(self)
        return False

    @classmethod
    def entered(cls):
        """The objects entered and not yet left, outermost first."""
        return list(cls._stack)
