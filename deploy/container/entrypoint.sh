#!/bin/sh
# Starts the coordinator with the configuration file baked into the image (or mounted over it) and the secrets the
# orchestrator passes as environment variables, so that no secret is written into a file:
#   LCC_S3_ACCESS_KEY_ID / LCC_S3_SECRET_ACCESS_KEY   static S3 keys (omit them to use the AWS default chain, e.g.
#                                                     an IAM role for the pod)
#   LCC_API_KEY_<NAME> / LCC_TOKEN_<NAME>             the x-api-key / bearer token of principal <name> (lower case)
# and the cluster keys (deploy/kubernetes runs three instances in cluster mode):
#   LCC_CLUSTER_ENABLED                               true: --cluster.enabled true
#   LCC_CLUSTER_SECRET                                the secret forwarded requests are signed with
#   LCC_CLUSTER_ADVERTISED_URL                        where the other instances reach this one; when unset, made from
#                                                     LCC_POD_IP (the pod IP, from the downward API) and LCC_PORT
#                                                     (default: the configuration file's port, else 9101)
#   LCC_CLUSTER_GROUP / LCC_CLUSTER_INSTANCE_ID       the consumer group; a static member id (e.g. the pod name)
# Any further arguments are passed on, e.g. --port 9200.
set -eu
config="${LCC_CONFIG:-/etc/lcc/coordinator.properties}"
set -- --config "$config" "$@"
if [ -n "${LCC_S3_ACCESS_KEY_ID:-}" ]; then
  set -- "$@" --s3.access-key-id "$LCC_S3_ACCESS_KEY_ID" --s3.secret-access-key "${LCC_S3_SECRET_ACCESS_KEY:?set with LCC_S3_ACCESS_KEY_ID}"
fi
for var in $(env | sed -n 's/^\(LCC_\(API_KEY\|TOKEN\)_[A-Za-z0-9_]*\)=.*/\1/p'); do
  name=$(echo "$var" | sed 's/^LCC_\(API_KEY\|TOKEN\)_//' | tr 'A-Z_' 'a-z-')
  case "$var" in
    LCC_API_KEY_*) set -- "$@" "--auth.principals.$name.api-key" "$(printenv "$var")" ;;
    LCC_TOKEN_*) set -- "$@" "--auth.principals.$name.token" "$(printenv "$var")" ;;
  esac
done
if [ "${LCC_CLUSTER_ENABLED:-false}" = "true" ]; then
  set -- "$@" --cluster.enabled true
  if [ -z "${LCC_CLUSTER_ADVERTISED_URL:-}" ] && [ -n "${LCC_POD_IP:-}" ]; then
    port="${LCC_PORT:-$(sed -n 's/^[[:space:]]*port[[:space:]]*[=:][[:space:]]*\([0-9][0-9]*\).*/\1/p' "$config" 2>/dev/null | tail -n 1)}"
    case "$LCC_POD_IP" in
      *:*) host="[$LCC_POD_IP]" ;; # an IPv6 pod IP
      *) host="$LCC_POD_IP" ;;
    esac
    LCC_CLUSTER_ADVERTISED_URL="http://$host:${port:-9101}"
  fi
  if [ -n "${LCC_CLUSTER_ADVERTISED_URL:-}" ]; then
    set -- "$@" --cluster.advertised-url "$LCC_CLUSTER_ADVERTISED_URL"
  fi
  if [ -n "${LCC_CLUSTER_SECRET:-}" ]; then
    set -- "$@" --cluster.secret "$LCC_CLUSTER_SECRET"
  fi
  if [ -n "${LCC_CLUSTER_GROUP:-}" ]; then
    set -- "$@" --cluster.group "$LCC_CLUSTER_GROUP"
  fi
  if [ -n "${LCC_CLUSTER_INSTANCE_ID:-}" ]; then
    set -- "$@" --cluster.instance-id "$LCC_CLUSTER_INSTANCE_ID"
  fi
fi
exec java ${JAVA_OPTS:-} --add-opens=java.base/java.nio=ALL-UNNAMED -jar "${LCC_HOME:-/opt/lcc}/coordinator.jar" "$@"
