"""Storage names that both the snapshot's reference check (kschedctl/cluster/references.py)
and the volume plugins read: well-known values of the Kubernetes API, not any plugin's own.

Upstream: k8s.io/csi-translation-lib (the in-tree volume plugins migrated to CSI, their
volume source fields and CSI drivers) and pkg/controller/volume/persistentvolume/util
(NotSupportedProvisioner, the provisioner of classes whose volumes are created by hand).
"""

from __future__ import annotations

# In-tree plugin -> (source field in a volume / PV spec, CSI driver). csi-translation-lib.
MIGRATABLE = {
    "kubernetes.io/aws-ebs": ("awsElasticBlockStore", "ebs.csi.aws.com"),
    "kubernetes.io/gce-pd": ("gcePersistentDisk", "pd.csi.storage.gke.io"),
    "kubernetes.io/azure-disk": ("azureDisk", "disk.csi.azure.com"),
    "kubernetes.io/cinder": ("cinder", "cinder.csi.openstack.org"),
}

# A StorageClass with this provisioner provisions nothing: its volumes are created by hand.
NOT_SUPPORTED_PROVISIONER = "kubernetes.io/no-provisioner"

__all__ = ["MIGRATABLE", "NOT_SUPPORTED_PROVISIONER"]
