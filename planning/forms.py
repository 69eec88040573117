"""The form that stores a flavor, shared by the console's Flavors page and
the admin, so both refuse the same things with the same words: the name and
resources rules are ``planning.flavor_services.flavor_name_check`` and
``flavor_parse`` (the ``PLACEMENT_FLAVORS`` reader, then the catalog)."""
from django import forms

from placement_core import errors
from planning import flavor_services
from planning.models import Flavor


class FlavorForm(forms.ModelForm):
    class Meta:
        model = Flavor
        fields = ("name", "resources")
        help_texts = {
            "name": "e.g. m1.large; not a name PLACEMENT_FLAVORS defines, no ';' or '='.",
            "resources": "The unsuffixed request group, e.g. VCPU:4,MEMORY_MB:8192,DISK_GB:80.",
        }
        widgets = {"resources": forms.TextInput(attrs={"size": 48})}

    def clean_name(self):
        try:
            return flavor_services.flavor_name_check(self.cleaned_data["name"])
        except errors.BadRequest as exc:
            raise forms.ValidationError(exc.detail) from None

    def clean(self):
        cleaned = super().clean()
        name, resources = cleaned.get("name"), cleaned.get("resources")
        if name and "resources" not in self.errors:
            try:
                spec = flavor_services.flavor_parse(name=name, resources=resources or "")
            except errors.BadRequest as exc:
                self.add_error("resources", exc.detail)
            else:
                cleaned["resources"] = flavor_services.flavor_text(spec)
        return cleaned
