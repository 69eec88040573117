"""DRF content negotiation that always answers JSON.

The Accept check (406 in Placement's words) is PlacementView's job.  Kept
apart from placement_core.api because DRF imports it while defining APIView.
"""
from rest_framework.negotiation import BaseContentNegotiation


class IgnoreAcceptNegotiation(BaseContentNegotiation):
    def select_parser(self, request, parsers):
        return parsers[0] if parsers else None

    def select_renderer(self, request, renderers, format_suffix=None):
        return renderers[0], renderers[0].media_type
