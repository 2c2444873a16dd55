"""tilelang.carver.arch: `driver.get_num_sms()`, and the arch objects that
the recommendation templates take."""

from ..errors import OutOfReach


class _Driver:
    """TileLang's carver.arch.driver: facts about the CUDA device."""

    @staticmethod
    def get_num_sms(device_id=0):
        from ..runtime.cuda import num_sms
        return num_sms(device_id)


driver = _Driver()

_WHY = ("tilemlir has no hardware-aware tile-size search (TileLang's carver); "
        "give the tile sizes yourself or autotune over a list of configs")
CUDA = OutOfReach("tilemlir.carver.arch.CUDA", _WHY)
CDNA = OutOfReach("tilemlir.carver.arch.CDNA", "the AMD backend is not built")
