# Generated from the model by io.thinvol.packaging.PackagingFiles; do not edit.
# Build from bundle/: docker build -f bundle.Dockerfile -t <registry>/thinvol-bundle:<version> .
FROM scratch

LABEL operators.operatorframework.io.bundle.mediatype.v1=registry+v1
LABEL operators.operatorframework.io.bundle.manifests.v1=manifests/
LABEL operators.operatorframework.io.bundle.metadata.v1=metadata/
LABEL operators.operatorframework.io.bundle.package.v1=thinvol
LABEL operators.operatorframework.io.bundle.channels.v1=stable
LABEL operators.operatorframework.io.bundle.channel.default.v1=stable
LABEL com.redhat.openshift.versions=v4.15

COPY manifests /manifests/
COPY metadata /metadata/
