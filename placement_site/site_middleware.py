"""Django's middleware that only the site's own pages use (the console,
the admin, the API docs): sessions, log-in and messages.

An API request, which the edge (``placement_core.edge``) has taken, passes
them by: its views read no session, no user and no message, and none of
these middleware changes an answer that used none of them. Each did its
bookkeeping anyway (a session store, a lazy user, two message stores):
0.03 ms of every request, a tenth of ``GET /``. Django's admin checks
find them, as subclasses of its own.
"""
from django.contrib.auth import middleware as auth
from django.contrib.messages import middleware as messages
from django.contrib.sessions import middleware as sessions

from placement_core.edge import taken_by_edge


class _SitePagesOnly:
    def __call__(self, request):
        if taken_by_edge(request):
            return self.get_response(request)
        return super().__call__(request)


class SessionMiddleware(_SitePagesOnly, sessions.SessionMiddleware):
    pass


class AuthenticationMiddleware(_SitePagesOnly, auth.AuthenticationMiddleware):
    pass


class MessageMiddleware(_SitePagesOnly, messages.MessageMiddleware):
    pass
