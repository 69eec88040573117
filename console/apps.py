from django.apps import AppConfig


class ConsoleConfig(AppConfig):
    name = "console"
    verbose_name = "Operator console"

    def ready(self):
        # The admin's log-in is throttled like the console's (console.throttle).
        from django.contrib import admin

        from console.throttle import ThrottledAdminAuthenticationForm

        admin.site.login_form = ThrottledAdminAuthenticationForm
