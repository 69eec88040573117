"""Route of GET /allocation_candidates."""
from django.urls import path

from allocations.api.candidates_views import AllocationCandidatesView

urlpatterns = [
    path("allocation_candidates", AllocationCandidatesView.as_view(), name="allocation-candidates"),
]
