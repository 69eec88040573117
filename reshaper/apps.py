from django.apps import AppConfig


class ReshaperConfig(AppConfig):
    name = "reshaper"
    verbose_name = "Reshaper"
