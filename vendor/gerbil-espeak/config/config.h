/* config.h for espeak-ng 1.52.0.1 as gerbil-espeak builds it (no cmake, no autotools).
 * What CMake's src/libespeak-ng/config.h.in would give with every optional part off:
 * no audio output (pcaudio), no sonic, no mbrola, no klatt, no speech-player, no async
 * thread: gerbil only asks for phonemes, synchronously. */
#ifndef GERBIL_ESPEAK_CONFIG_H
#define GERBIL_ESPEAK_CONFIG_H

#define HAVE_MKSTEMP 1

#define USE_ASYNC 0
#define USE_KLATT 0
#define USE_LIBPCAUDIO 0
#define USE_LIBSONIC 0
#define USE_MBROLA 0
#define USE_SPEECHPLAYER 0

#define PACKAGE_VERSION "1.52.0.1"

#endif
