# gerbil: the OpenAI-compatible server in a container.
#
#   docker build -t gerbil .
#   docker run --gpus all -p 8080:8080 -v gerbil-hf:/data/hf gerbil
#   docker run --gpus all -p 8080:8080 -v $PWD/models:/models gerbil serve --listen 0.0.0.0:8080 --model /models/my-model
#
# The GPU is reached through the host driver: with the NVIDIA container toolkit,
# NVIDIA_DRIVER_CAPABILITIES must include "graphics" so the Vulkan ICD is mounted.
# Without a GPU the Mesa software rasterizer (lavapipe) runs it on the CPU, slowly.
#
# Where no Docker engine runs, tools/check_runtime_image.sh checks the runtime stage's package list
# (debootstrap + chroot + gerbil serve + one completion).

FROM rust:1.95-bookworm AS build
WORKDIR /src
# espeak-ng (phonemes, its data compiled and embedded), libopus and LAME are built from source by cargo:
# nothing beyond the Rust image's C compiler is needed.
COPY . .
RUN cargo build --release --locked --bin gerbil

FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends libvulkan1 mesa-vulkan-drivers ca-certificates curl \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /src/target/release/gerbil /usr/local/bin/gerbil
ENV NVIDIA_VISIBLE_DEVICES=all \
    NVIDIA_DRIVER_CAPABILITIES=compute,graphics,utility \
    HF_HOME=/data/hf \
    XDG_CACHE_HOME=/data/cache \
    XDG_RUNTIME_DIR=/tmp \
    GERBIL_LISTEN=0.0.0.0:8080 \
    RUST_LOG=warn,gerbil=info
VOLUME ["/data/hf", "/data/cache"]
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --start-period=600s CMD curl -fsS http://127.0.0.1:8080/ready || exit 1
ENTRYPOINT ["gerbil"]
CMD ["serve"]
